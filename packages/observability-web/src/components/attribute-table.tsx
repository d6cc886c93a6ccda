import type { AttributeValue } from '../api/api-types.js';

/** Attributes sorted by name. */
export function sortedAttributes(attributes: Record<string, AttributeValue> | null): Array<[string, AttributeValue]> {
  return Object.entries(attributes ?? {}).sort(([a], [b]) => a.localeCompare(b));
}

/** Attributes as a two-column table (name, value), sorted by name; `empty` says there are none. */
export function AttributeTable({ attributes, empty }: { attributes: Record<string, AttributeValue> | null; empty: string }) {
  const entries = sortedAttributes(attributes);
  if (entries.length === 0) return <p class="muted">{empty}</p>;
  return (
    <table class="table table-compact">
      <tbody>
        {entries.map(([name, value]) => (
          <tr key={name}>
            <th scope="row" class="mono">
              {name}
            </th>
            <td class="mono">{String(value)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

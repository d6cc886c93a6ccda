import type { ComponentChildren } from 'preact';

/** A column heading: its text, and `num` for a right-aligned figure column. */
export type Column = string | { label: string; num?: boolean };

/** A labelled table in its scrolling wrapper: the headings given, the rows as children (one `<tr>` each). */
export function DataTable({ label, columns, children, className }: { label: string; columns: readonly Column[]; children: ComponentChildren; className?: string }) {
  return (
    <div class="table-wrap">
      <table class={className ? `table ${className}` : 'table'} aria-label={label}>
        <thead>
          <tr>
            {columns.map((column, i) =>
              typeof column === 'string' ? (
                <th key={i}>{column}</th>
              ) : (
                <th key={i} class={column.num ? 'num' : undefined}>
                  {column.label}
                </th>
              ),
            )}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

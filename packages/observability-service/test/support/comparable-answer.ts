/**
 * An answer as two stores' answers are compared: ids and cursors left out (each store makes its
 * own) and doubles to 9 significant digits (each store adds them in its own order).
 */
export function comparableAnswer(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(comparableAnswer);
  if (typeof value === 'number') return Number.isInteger(value) ? value : Number(value.toPrecision(9));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== 'id' && key !== 'occurrenceId' && key !== 'nextCursor')
      .map(([key, entry]) => [key, comparableAnswer(entry)]),
  );
}

/**
 * SQL literals for ClickHouse statements. Query parameters (`{name:Type}`) arrived in ClickHouse
 * 19.x; Debian's 18.16 has none, so values are written into the statement, escaped here and
 * nowhere else.
 */
export function stringLiteral(value: string): string {
  return `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

/** A finite number as a literal; anything else throws (never reaches a statement). */
export function numberLiteral(value: number): string {
  if (!Number.isFinite(value)) throw new Error(`not a finite number: ${value}`);
  return String(value);
}

/** `[...]` of string literals. */
export function stringArrayLiteral(values: readonly string[]): string {
  return `[${values.map(stringLiteral).join(', ')}]`;
}

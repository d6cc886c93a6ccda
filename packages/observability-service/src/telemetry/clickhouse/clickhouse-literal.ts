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

/**
 * A double as the writer sent it. ClickHouse 18.16 parses Float64 text in its fast, inexact way
 * (6.762 can be stored one unit in the last place off, and comes back as 6.7620000000000005), so
 * reads round to the digits the values carry: `digits` 15 for durations and sums (milliseconds
 * with sub-microsecond fractions), 16 for epoch-millisecond times.
 */
export function sentDouble(value: number | string, digits: 15 | 16 = 15): number {
  return Number(Number(value).toPrecision(digits));
}

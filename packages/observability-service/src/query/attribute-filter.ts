import { sql, type Expression, type SqlBool } from 'kysely';
import { ApiError, type Dialect } from '@playstack/server-kit/core';
import { attributeFilterPattern, attributeFiltersMax } from './query-schemas.js';

const attributePrefix = 'attr.';

const attributeFilterName = new RegExp(attributeFilterPattern);

/** The `attr.<key>=<value>` parameters of a query string; 400 for a malformed key or beyond the maximum. */
export function attributeFiltersOf(query: Record<string, unknown>): Array<[string, string]> {
  const names = Object.keys(query).filter((name) => name.startsWith(attributePrefix));
  const malformed = names.find((name) => !attributeFilterName.test(name));
  if (malformed !== undefined) throw new ApiError('invalid-request', `querystring.${malformed}: an attribute name is 1-128 characters without " or \\.`);
  const filters = names.map((name): [string, string] => [name.slice(attributePrefix.length), String(query[name])]);
  if (filters.length > attributeFiltersMax) throw new ApiError('invalid-request', `At most ${attributeFiltersMax} attr.<key> filters per query; this one has ${filters.length}.`);
  return filters;
}

/**
 * An attribute of the record (span or log record) or of its resource equals the value: as a string, or as the number or
 * boolean the value spells (attribute values are JSON text in `attributes` and
 * `resource_attributes`). Not indexed: checked on the rows the range and the other filters select.
 */
export function attributeEquals(dialect: Dialect, key: string, value: string): Expression<SqlBool> {
  if (dialect === 'postgres') {
    const matches = (column: string) => sql<SqlBool>`(${sql.ref(column)}::jsonb -> ${key})::text in (to_jsonb(${value}::text)::text, ${value})`;
    return sql<SqlBool>`(${matches('attributes')} or ${matches('resource_attributes')})`;
  }
  // Keys are free of double quotes (the schema's pattern), so a quoted JSON path label holds any of them.
  const path = `$."${key}"`;
  const matches = (column: string) => sql<SqlBool>`${sql.ref(column)} -> ${path} in (json_quote(${value}), ${value})`;
  return sql<SqlBool>`(${matches('attributes')} or ${matches('resource_attributes')})`;
}

/** Characters JSON.stringify writes escaped (quote, backslash, control characters, lone surrogates). */
const escapedInJson = /["\\\u0000-\u001f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Whether every stored attribute value that `attributeEquals` matches spells `value` verbatim in
 * the stored JSON text (written by JSON.stringify): true for a value without characters JSON
 * escapes that is neither an array or object (PostgreSQL renders those with spaces) nor a number
 * JSON.stringify writes in exponent form (PostgreSQL renders those in full).
 */
export function spelledVerbatim(value: string): boolean {
  if (escapedInJson.test(value) || value.startsWith('[') || value.startsWith('{')) return false;
  const number = value.trim() === '' ? Number.NaN : Number(value);
  return !(Number.isFinite(number) && number !== 0 && (Math.abs(number) >= 1e21 || Math.abs(number) < 1e-6));
}

/**
 * `attributeEquals` for the columns written from JSON.stringify output (occurrences), with a
 * substring test first: a row whose JSON text does not contain the value cannot match, and the
 * test costs a fraction of parsing the JSON, which then happens only on the rows that contain it.
 */
export function storedAttributeEquals(dialect: Dialect, key: string, value: string): Expression<SqlBool> {
  const exact = attributeEquals(dialect, key, value);
  if (!spelledVerbatim(value)) return exact;
  const contains = (column: string) => (dialect === 'postgres' ? sql<SqlBool>`strpos(${sql.ref(column)}, ${value}) > 0` : sql<SqlBool>`instr(${sql.ref(column)}, ${value}) > 0`);
  return sql<SqlBool>`((${contains('attributes')} or ${contains('resource_attributes')}) and ${exact})`;
}

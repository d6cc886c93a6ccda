import { sql, type RawBuilder } from 'kysely';

/**
 * The arguments of a PostgreSQL advisory lock (`pg_advisory_xact_lock(${schemaLock(key)})`) on
 * `key` in the current schema, so environments sharing a database through `DATABASE_SCHEMA` do not
 * wait on each other's locks.
 */
export function schemaLock(key: number): RawBuilder<unknown> {
  return sql`${key}, hashtext(current_schema())`;
}

import { sql, type ColumnDefinitionBuilder, type Expression, type RawBuilder } from 'kysely';
import type { Dialect } from './database.js';

/**
 * Conventions for portable schemas: timestamps are epoch milliseconds in BIGINT columns,
 * booleans are 0/1 integers, JSON is text. These helpers keep the few dialect differences here.
 */
export const portable = {
  /** Auto-incrementing primary key column type. */
  autoId(dialect: Dialect) {
    return dialect === 'postgres' ? ('bigserial' as const) : ('integer' as const);
  },
  /** Binary column type. */
  bytes(dialect: Dialect) {
    return dialect === 'postgres' ? ('bytea' as const) : ('blob' as const);
  },
};

/** Marks an auto-increment primary key in a column builder. */
export function autoIncrementPrimaryKey(dialect: Dialect) {
  return (col: ColumnDefinitionBuilder) => (dialect === 'postgres' ? col.primaryKey() : col.primaryKey().autoIncrement());
}

/** `greatest(a, b)` on PostgreSQL, `max(a, b)` on SQLite. */
export function greatest<T>(dialect: Dialect, a: Expression<T>, b: Expression<T>): RawBuilder<T> {
  return dialect === 'postgres' ? sql<T>`greatest(${a}, ${b})` : sql<T>`max(${a}, ${b})`;
}

/** `least(a, b)` on PostgreSQL, `min(a, b)` on SQLite. */
export function least<T>(dialect: Dialect, a: Expression<T>, b: Expression<T>): RawBuilder<T> {
  return dialect === 'postgres' ? sql<T>`least(${a}, ${b})` : sql<T>`min(${a}, ${b})`;
}

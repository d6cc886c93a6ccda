import type { Dialect } from '@playstack/server-kit';

/**
 * The text of one INSERT of `rowCount` rows into `table`: placeholders numbered across the whole
 * statement on PostgreSQL, `?` on SQLite; the parameters go row by row in `columns` order.
 * Precompiled text, because building a Kysely tree of thousands of values costs more than the insert.
 * `orFail` (SQLite): `insert or fail`, which needs no statement savepoint (the rows inserted before
 * a failing one stay until the transaction is rolled back).
 */
export function multiRowInsertSql(dialect: Dialect, table: string, columns: readonly string[], rowCount: number, orFail = false): string {
  const postgres = dialect === 'postgres';
  let parameter = 0;
  const tuple = () => `(${columns.map(() => (postgres ? `$${++parameter}` : '?')).join(',')})`;
  return `insert${orFail && !postgres ? ' or fail' : ''} into ${table} (${columns.join(',')}) values ${Array.from({ length: rowCount }, tuple).join(',')}`;
}

import type { QueryExecutorProvider, QueryResult, RawBuilder } from 'kysely';
import type pg from 'pg';

/**
 * Statements PostgreSQL prepares once per connection and then only binds and executes: the
 * fixed-shape statements of hot paths (the game service's precompiled queries), named here by
 * their text. A statement sent unnamed is parsed and planned by the server on every execution;
 * on a small machine that server work competes with the service for the same cores (run
 * submission: 1.22 times the runs per second at the median of three paired runs; docs/performance.md).
 *
 * Only registered texts are named, never every text a query builder produces: a prepared statement
 * lives as long as its connection, and texts that vary (IN lists of any length, dashboards'
 * filters) would pile up on every connection.
 */
const names = new Map<string, string>();

/** Registers `sql` (idempotent) and returns the name every connection prepares it under. */
export function prepareOnPostgres(sql: string): string {
  let name = names.get(sql);
  if (name === undefined) {
    name = `playstack_${names.size}`;
    names.set(sql, name);
  }
  return name;
}

/**
 * Runs a statement whose text never changes (its values are parameters) as a registered one: on
 * PostgreSQL a named prepared statement of the connection it runs on.
 */
export function executePrepared<R>(db: QueryExecutorProvider, query: RawBuilder<R>): Promise<QueryResult<R>> {
  const compiled = query.compile(db);
  prepareOnPostgres(compiled.sql);
  return db.getExecutor().executeQuery(compiled);
}

/** What a pg client's `query` is called with: a text and its values, or a config object. */
type QueryFunction = (...args: unknown[]) => unknown;

/**
 * Makes a pg client send each registered statement as a named prepared statement (pg prepares it
 * on the connection's first use, then sends only bind and execute). Everything else passes as is.
 */
export function namePreparedStatements(pgClient: pg.ClientBase): void {
  const client = pgClient as { query: QueryFunction };
  const query = client.query.bind(client);
  client.query = (text: unknown, ...rest: unknown[]) => {
    if (typeof text === 'string' && Array.isArray(rest[0])) {
      const name = names.get(text);
      if (name !== undefined) return query({ name, text, values: rest[0] }, ...rest.slice(1));
    }
    return query(text, ...rest);
  };
}

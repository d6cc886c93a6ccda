import type { Statement } from 'better-sqlite3';
import type { QueryResult } from 'kysely';
import { inStatementSpan, type StatementSpanStarter } from '../telemetry/sql-spans.js';

/** Prepared statements of one SQLite connection by SQL text (the kit's statement cache, `withStatementCache`). */
export interface PreparedStatements {
  prepare(sql: string): Statement;
}

/** Runs statements on one SQLite connection at once (`sqliteStatements`). */
export interface SqliteStatements {
  /** Runs SQL at once, answering as Kysely's SQLite driver does; a CLIENT span of it when traced and a sampled request's span is active. */
  execute<R>(sql: string, parameters: readonly unknown[]): QueryResult<R>;
}

/** Transactions whose statements may go straight to their SQLite connection, with its statements. */
const direct = new WeakMap<object, SqliteStatements>();

/**
 * For the owner of a SQLite transaction (the game service's group commit): until the returned
 * release is called, `directStatementsOf(trx)` answers the connection's statements, so a caller
 * holding `trx` may run a precompiled statement on it at once rather than through Kysely's
 * executor (a dozen promises and their microtask turns per statement, on every run). Only a
 * transaction's owner may do this: while it is open it holds the one connection, so nothing else
 * runs on it in between.
 */
export function runStatementsDirectly(trx: object, statements: SqliteStatements): () => void {
  direct.set(trx, statements);
  return () => direct.delete(trx);
}

/** The SQLite statements `trx` may run directly (`runStatementsDirectly`), if any. */
export function directStatementsOf(trx: object): SqliteStatements | undefined {
  return direct.get(trx);
}

/** The connection's statements run at once, each in a statement span when `startSpan` is given (tracing on). */
export function sqliteStatements(prepared: PreparedStatements, startSpan: StatementSpanStarter | undefined): SqliteStatements {
  const run = <R>(sql: string, parameters: readonly unknown[]): QueryResult<R> => {
    const statement = prepared.prepare(sql);
    if (statement.reader) return { rows: statement.all(parameters) as R[] };
    const { changes, lastInsertRowid } = statement.run(parameters);
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
  };
  if (!startSpan) return { execute: run };
  return { execute: (sql, parameters) => inStatementSpan(startSpan, sql, () => run(sql, parameters)) };
}

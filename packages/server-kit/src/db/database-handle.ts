import type { Kysely } from 'kysely';
import type { SqliteStatements } from './direct-statements.js';

export type Dialect = 'sqlite' | 'postgres';

/** A Kysely instance over SQLite or PostgreSQL, with what callers need to know about it. */
export interface Database<DB = any> {
  readonly db: Kysely<DB>;
  readonly dialect: Dialect;
  /** SQLite: the connection's prepared statements, for the owner of a transaction (`runStatementsDirectly`). */
  readonly sqliteStatements?: SqliteStatements;
  /** Round trip to the database; rejects when it is unreachable. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

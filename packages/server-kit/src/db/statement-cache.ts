import type { Database as SqliteFile, Statement } from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';
import type { PreparedStatements } from './direct-statements.js';

/** How many distinct SQL texts keep their prepared statement. */
export const defaultStatementCacheSize = 512;

/**
 * A better-sqlite3 database for Kysely's SqliteDialect that reuses prepared statements by SQL
 * text. Kysely prepares every query afresh, and preparing costs about as much as running a
 * simple statement. Reuse is safe: Kysely runs one query at a time on its single SQLite
 * connection (a stream holds the connection until it ends), and SQLite re-prepares a cached
 * statement by itself when the schema changes. The least recently used statement goes first.
 * Transactions begin IMMEDIATE (below).
 */
export function withStatementCache(file: SqliteFile, maxStatements = defaultStatementCacheSize): SqliteDatabase & PreparedStatements {
  const statements = new Map<string, Statement>();
  return {
    close() {
      statements.clear();
      file.close();
    },
    prepare(sql: string) {
      // Kysely begins every transaction with a plain (deferred) BEGIN. A deferred transaction that
      // reads before it writes fails at once with SQLITE_BUSY (no busy wait) when another
      // connection to the file commits in between: the ingest writer thread's, or another
      // process's. Taking the write lock at BEGIN makes it wait its turn instead.
      if (sql === 'begin') sql = 'begin immediate';
      let statement = statements.get(sql);
      if (statement) {
        statements.delete(sql);
      } else {
        statement = file.prepare(sql);
        if (statements.size >= maxStatements) statements.delete(statements.keys().next().value!);
      }
      statements.set(sql, statement);
      return statement;
    },
  };
}

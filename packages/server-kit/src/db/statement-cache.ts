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
 */
export function withStatementCache(file: SqliteFile, maxStatements = defaultStatementCacheSize): SqliteDatabase & PreparedStatements {
  const statements = new Map<string, Statement>();
  return {
    close() {
      statements.clear();
      file.close();
    },
    prepare(sql: string) {
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

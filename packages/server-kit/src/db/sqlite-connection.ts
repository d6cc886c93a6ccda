import type { Database as SqliteFile } from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { CompiledQuery, Kysely, SqliteDialect, type Dialect as KyselyDialect } from 'kysely';
import type { Database } from './database-handle.js';
import { SqliteDatabase } from './sqlite-driver.js';
import type { PreparedStatements } from './direct-statements.js';
import { withStatementCache } from './statement-cache.js';

/** The SQLite settings a connection is opened with (`openDatabase`); benchmarks open their raw files with the same. */
export interface SqlitePragmaOptions {
  sqliteSynchronous: 'normal' | 'full';
  /** Bytes of the file read through memory mapping (`mmap_size`); SQLite's default (none) when unset. */
  sqliteMmapBytes?: number | undefined;
  /** Bytes of page cache (`cache_size`); SQLite's default (2 MiB) when unset. */
  sqliteCacheBytes?: number | undefined;
  /** WAL pages after which a commit checkpoints (`wal_autocheckpoint`); SQLite's default (1,000) when unset. */
  sqliteWalAutocheckpointPages?: number | undefined;
}

/** Sets a SQLite connection up as `openDatabase` does: WAL, `synchronous`, a busy timeout, memory mapping, page cache, checkpoint interval. */
export function applySqlitePragmas(file: SqliteFile, options: SqlitePragmaOptions): void {
  file.pragma('journal_mode = WAL');
  file.pragma(`synchronous = ${options.sqliteSynchronous === 'full' ? 'FULL' : 'NORMAL'}`);
  file.pragma('foreign_keys = ON');
  file.pragma('busy_timeout = 5000');
  if (options.sqliteMmapBytes !== undefined) file.pragma(`mmap_size = ${Math.floor(options.sqliteMmapBytes)}`);
  // A negative cache_size is in KiB.
  if (options.sqliteCacheBytes !== undefined) file.pragma(`cache_size = ${-Math.max(1, Math.floor(options.sqliteCacheBytes / 1024))}`);
  if (options.sqliteWalAutocheckpointPages !== undefined) file.pragma(`wal_autocheckpoint = ${Math.floor(options.sqliteWalAutocheckpointPages)}`);
}

/**
 * Kysely's SQLite dialect, every transaction begun IMMEDIATE. Kysely begins with a plain
 * (deferred) BEGIN, and a deferred transaction that reads before it writes fails at once with
 * SQLITE_BUSY (no busy wait) when another connection to the file commits in between: the
 * observability service's writer thread's, or another process's. Taking the write lock at BEGIN
 * makes it wait its turn instead.
 */
function immediateTransactions(dialect: SqliteDialect): KyselyDialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createDriver: () => {
      const driver = dialect.createDriver();
      driver.beginTransaction = async (connection) => {
        await connection.executeQuery(CompiledQuery.raw('begin immediate'));
      };
      return driver;
    },
  };
}

/**
 * The SQLite database at `path` (created with its directory when missing), set up by
 * `applySqlitePragmas`, through Kysely with a prepared-statement cache and IMMEDIATE
 * transactions; `dialect` wraps Kysely's dialect (tracing). Its `statements` are the cache, for
 * `sqliteStatements`. Loads nothing beyond better-sqlite3 and Kysely, so a worker thread can open
 * a second connection cheaply.
 */
export function sqliteDatabase<DB>(path: string, options: SqlitePragmaOptions, dialect: (sqlite: KyselyDialect) => KyselyDialect = (sqlite) => sqlite): Database<DB> & { statements: PreparedStatements } {
  mkdirSync(dirname(path), { recursive: true });
  const file = new SqliteDatabase(path);
  applySqlitePragmas(file, options);
  const statements = withStatementCache(file);
  const db = new Kysely<DB>({ dialect: dialect(immediateTransactions(new SqliteDialect({ database: statements }))) });
  return {
    db,
    dialect: 'sqlite',
    statements,
    async ping() {
      file.prepare('select 1').get();
    },
    async close() {
      await db.destroy();
    },
  };
}

import { join } from 'node:path';
import { Kysely, PostgresDialect, sql, type Dialect as KyselyDialect } from 'kysely';
import pg from 'pg';
import { statementSpans, tracedDialect, type DbSystem, type StatementSpanStarter } from '../telemetry/sql-spans.js';
import { activeTracing } from '../telemetry/tracing.js';
import type { Database } from './database-handle.js';
import { sqliteStatements } from './direct-statements.js';
import { namePreparedStatements } from './prepared-statements.js';
import { sqliteDatabase, type SqlitePragmaOptions } from './sqlite-connection.js';

export type { Database, Dialect } from './database-handle.js';

export interface DatabaseOptions extends SqlitePragmaOptions {
  /** `postgres://...`; unset selects SQLite. */
  url?: string | undefined;
  /** PostgreSQL schema (created when missing); every connection's search_path. */
  schema: string;
  poolSize: number;
  /**
   * PostgreSQL: send the statements registered with `prepareOnPostgres` as named prepared
   * statements (default true). Off behind a pooler that cannot keep them (PgBouncer in
   * transaction mode before 1.21).
   */
  preparedStatements?: boolean;
  /** SQLite: directory and file name of the database file. */
  dataDir: string;
  fileName: string;
}

const int8Oid = 20;
const numericOid = 1700;

// Epoch-millisecond timestamps and counters live in BIGINT columns; they fit in a double.
const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === int8Oid || oid === numericOid) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format as 'text');
  },
} as pg.CustomTypesConfig;

/** The CLIENT spans of a database's statements when tracing is on (`startTracing`). */
function statementSpansOf(system: DbSystem, namespace: string): StatementSpanStarter | undefined {
  const tracing = activeTracing();
  return tracing && statementSpans(tracing, system, namespace);
}

/** The dialect, its queries traced when `startSpan` is given; as it is otherwise. */
function traced(dialect: KyselyDialect, startSpan: StatementSpanStarter | undefined): KyselyDialect {
  return startSpan ? tracedDialect(dialect, startSpan) : dialect;
}

/** Opens the database the options describe. SQLite files are set up by `applySqlitePragmas`. */
export async function openDatabase<DB = any>(options: DatabaseOptions): Promise<Database<DB>> {
  if (options.url) return openPostgres<DB>(options);
  return openSqlite<DB>(options);
}

function openSqlite<DB>(options: DatabaseOptions): Database<DB> {
  // One span starter for both ways statements run: Kysely's and the direct ones.
  const startSpan = statementSpansOf('sqlite', options.fileName);
  const { statements, ...database } = sqliteDatabase<DB>(join(options.dataDir, options.fileName), options, (dialect) => traced(dialect, startSpan));
  return { ...database, sqliteStatements: sqliteStatements(statements, startSpan) };
}

async function openPostgres<DB>(options: DatabaseOptions): Promise<Database<DB>> {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize,
    connectionTimeoutMillis: 5_000,
    options: `-c search_path=${options.schema}`,
    types: pgTypes,
  });
  // A dropped connection must not crash the process: the query in flight rejects, and pg-pool
  // discards a client that is no longer queryable when it is released.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  if (options.preparedStatements !== false) pool.on('connect', (client) => namePreparedStatements(client));
  const db = new Kysely<DB>({ dialect: traced(new PostgresDialect({ pool }), statementSpansOf('postgresql', options.schema)) });
  if (options.schema !== 'public') {
    await sql`create schema if not exists ${sql.id(options.schema)}`.execute(db);
  }
  return {
    db,
    dialect: 'postgres',
    async ping() {
      await sql`select 1`.execute(db);
    },
    async close() {
      await db.destroy();
    },
  };
}

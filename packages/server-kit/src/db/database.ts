import { join } from 'node:path';
import { Kysely, PostgresDialect, sql, type Dialect as KyselyDialect } from 'kysely';
import pg from 'pg';
import { statementSpans, tracedDialect } from '../telemetry/sql-spans.js';
import { activeTracing } from '../telemetry/tracing.js';
import { sqliteStatements, type SqliteStatements } from './direct-statements.js';
import { sqliteDialect, type SqlitePragmaOptions } from './sqlite-connection.js';

export type Dialect = 'sqlite' | 'postgres';

export interface DatabaseOptions extends SqlitePragmaOptions {
  /** `postgres://...`; unset selects SQLite. */
  url?: string | undefined;
  /** PostgreSQL schema (created when missing); every connection's search_path. */
  schema: string;
  poolSize: number;
  /** SQLite: directory and file name of the database file. */
  dataDir: string;
  fileName: string;
}

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

const int8Oid = 20;
const numericOid = 1700;

// Epoch-millisecond timestamps and counters live in BIGINT columns; they fit in a double.
const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === int8Oid || oid === numericOid) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format as 'text');
  },
} as pg.CustomTypesConfig;

/** The dialect, its queries traced when tracing is on (`startTracing`); as it is otherwise. */
function traced(dialect: KyselyDialect, system: 'sqlite' | 'postgresql', namespace: string): KyselyDialect {
  const tracing = activeTracing();
  return tracing ? tracedDialect(dialect, tracing, system, namespace) : dialect;
}

/** Opens the database the options describe. SQLite files are set up by `applySqlitePragmas`. */
export async function openDatabase<DB = any>(options: DatabaseOptions): Promise<Database<DB>> {
  if (options.url) return openPostgres<DB>(options);
  return openSqlite<DB>(options);
}

function openSqlite<DB>(options: DatabaseOptions): Database<DB> {
  const { dialect, file, statements } = sqliteDialect(join(options.dataDir, options.fileName), options);
  const db = new Kysely<DB>({ dialect: traced(dialect, 'sqlite', options.fileName) });
  const tracing = activeTracing();
  return {
    db,
    dialect: 'sqlite',
    sqliteStatements: sqliteStatements(statements, tracing && statementSpans(tracing, 'sqlite', options.fileName)),
    async ping() {
      file.prepare('select 1').get();
    },
    async close() {
      await db.destroy();
    },
  };
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
  const db = new Kysely<DB>({ dialect: traced(new PostgresDialect({ pool }), 'postgresql', options.schema) });
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

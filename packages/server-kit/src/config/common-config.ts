import { Type } from '@sinclair/typebox';
import { Flag } from './load-config.js';

/**
 * Environment variables both services read. Each service spreads these into its own schema.
 * The `description` of each doubles as the README's configuration reference.
 */
export const commonConfigProperties = {
  HOST: Type.String({ default: '127.0.0.1', minLength: 1, description: 'interface to bind' }),
  LOG_LEVEL: Type.Union(
    [
      Type.Literal('fatal'),
      Type.Literal('error'),
      Type.Literal('warn'),
      Type.Literal('info'),
      Type.Literal('debug'),
      Type.Literal('trace'),
      Type.Literal('silent'),
    ],
    { default: 'info', description: 'one of fatal, error, warn, info, debug, trace, silent' },
  ),
  LOG_FORMAT: Type.Optional(
    Type.Union([Type.Literal('pretty'), Type.Literal('json')], {
      description: 'pretty (one readable line per event) or json (JSON lines); unset: pretty when stdout is a terminal, json otherwise',
    }),
  ),
  LOG_REQUESTS: Type.Optional(
    Type.Union([Type.Literal('all'), Type.Literal('errors-and-slow'), Type.Literal('off')], {
      description: 'which requests get a log line: all, errors-and-slow (5xx answers and requests slower than LOG_SLOW_REQUEST_MS) or off; unset: errors-and-slow when stdout is a terminal, all otherwise',
    }),
  ),
  LOG_SLOW_REQUEST_MS: Type.Integer({ minimum: 1, maximum: 600_000, default: 1_000, description: 'a request slower than this is logged (at warn) unless LOG_REQUESTS=off, in milliseconds' }),
  DATA_DIR: Type.String({ default: './data', minLength: 1, description: 'directory for SQLite files' }),
  DATABASE_URL: Type.Optional(
    Type.String({ pattern: '^postgres(ql)?://', description: 'a postgres:// URL; unset means embedded SQLite' }),
  ),
  DATABASE_SCHEMA: Type.String({
    default: 'public',
    pattern: '^[a-z_][a-z0-9_]{0,62}$',
    expected: 'a PostgreSQL schema name: lowercase letters, digits and _, not starting with a digit, 63 at most',
    description: 'PostgreSQL schema to use (created if missing)',
  }),
  DATABASE_POOL_SIZE: Type.Integer({ minimum: 1, maximum: 200, default: 10, description: 'PostgreSQL pool size' }),
  DATABASE_PREPARED_STATEMENTS: Type.Union([Type.Literal('on'), Type.Literal('off')], {
    default: 'on',
    description: 'on: PostgreSQL prepares the hot paths\' fixed statements once per connection (named prepared statements); off behind a pooler that cannot keep them (PgBouncer in transaction mode before 1.21)',
  }),
  SQLITE_SYNCHRONOUS: Type.Union([Type.Literal('normal'), Type.Literal('full')], {
    default: 'normal',
    description: 'normal (survives process crashes) or full (also survives power loss)',
  }),
  SQLITE_MMAP_MB: Type.Integer({
    minimum: 0,
    maximum: 65_536,
    default: 1024,
    description: 'how much of the SQLite file (from its start) is read through memory mapping rather than read calls, in MiB (0 turns it off; SQLite maps 2 GiB at most); queries that read many scattered rows in the mapped part take about half the CPU',
  }),
  SQLITE_CACHE_MB: Type.Integer({
    minimum: 1,
    maximum: 65_536,
    default: 64,
    description: "SQLite's page cache per connection, in MiB (SQLite's own default is 2): inserts into indexes keyed by random ids (trace and span ids) or by many keys (operations) touch pages all over the file, and a page missing from the cache is read again on every write",
  }),
  SQLITE_WAL_AUTOCHECKPOINT_PAGES: Type.Integer({
    minimum: 100,
    maximum: 1_000_000,
    default: 10_000,
    description: "WAL pages (4 KiB each) after which a commit copies the WAL into the database file (SQLite's own default is 1,000): a page changed by several commits in between is copied once, so fewer writes per stored row; the WAL file grows to about this size",
  }),
  REDIS_URL: Type.Optional(Type.String({ pattern: '^rediss?://', description: 'a redis:// URL; unset means in-process state' })),
  REDIS_KEY_PREFIX: Type.String({ default: '', maxLength: 64, description: 'prefix for every Redis key' }),
  REDIS_COMMAND_TIMEOUT_MS: Type.Integer({
    minimum: 50,
    maximum: 60_000,
    default: 500,
    description: 'the longest one Redis command may take; past it (or at once when Redis is disconnected) the service stops using Redis and answers from its fallbacks until Redis answers again, in milliseconds',
  }),
  METRICS_TOKEN: Type.Optional(Type.String({ minLength: 8, description: 'bearer token required by /metrics (8+ chars)' })),
  TRUST_PROXY: Flag(false, 'true when behind a reverse proxy that sets X-Forwarded-*'),
  STARTUP_TIMEOUT_SECONDS: Type.Integer({
    minimum: 0,
    maximum: 3_600,
    default: 60,
    description: 'how long a starting service retries PostgreSQL and Redis (with backoff) before it exits naming DATABASE_URL or REDIS_URL; meanwhile /healthz answers and /readyz says what it waits for',
  }),
  SHUTDOWN_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 600_000, default: 10_000, description: 'grace period for in-flight requests at shutdown' }),
} as const;

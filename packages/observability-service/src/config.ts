import { Type, type Static } from '@sinclair/typebox';
import { commonConfigProperties, configSchema, Flag, loadConfig, Port } from '@playstack/server-kit';

/** Every environment variable the observability service reads. */
export const observabilityConfigSchema = configSchema({
  ...commonConfigProperties,
  OBSERVABILITY_PORT: Port(8081, 'port of the observability service'),
  OBSERVABILITY_BODY_LIMIT_BYTES: Type.Integer({ minimum: 1024, maximum: 64 * 1024 * 1024, default: 5 * 1024 * 1024, description: 'ingest body limit in bytes (after decompression)' }),
  OTLP_GRPC_PORT: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 65535,
      description: 'port of OTLP/gRPC (bound on HOST); unset: 4317, and if 4317 is taken the service starts without gRPC and logs a warning; 0 turns gRPC off; a port set here must be free or the service does not start',
    }),
  ),
  OTLP_GRPC_TLS_CERT_FILE: Type.Optional(Type.String({ minLength: 1, description: 'PEM certificate chain file: OTLP/gRPC serves TLS (set with OTLP_GRPC_TLS_KEY_FILE)' })),
  OTLP_GRPC_TLS_KEY_FILE: Type.Optional(Type.String({ minLength: 1, description: 'PEM private key file of OTLP_GRPC_TLS_CERT_FILE' })),
  INGESTION_KEY_FILE: Type.Optional(
    Type.String({ minLength: 1, description: 'file holding an ingestion key (obsk_...) registered at start, listed as INGESTION_KEY_FILE and revocable in the dashboard: a key for a sender before any user exists (npm start makes one for the bundled game service)' }),
  ),
  SERVICE_API_KEY: Type.Optional(Type.String({ minLength: 16, description: 'legacy ingestion key (16+ chars); unset disables it' })),
  OBSERVABILITY_WEB_DIR: Type.Optional(Type.String({ minLength: 1, description: 'directory of the built dashboard served at / (default: the observability-web package\'s dist)' })),
  RETENTION_DAYS: Type.Integer({ minimum: 1, maximum: 3650, default: 14, description: 'days of data kept until an admin sets retention in the dashboard' }),
  RETENTION_PRUNE_INTERVAL_SECONDS: Type.Integer({ minimum: 1, maximum: 86_400, default: 60, description: 'how often data older than the retention is pruned' }),
  RETENTION_PRUNE_BATCH_ROWS: Type.Integer({ minimum: 100, maximum: 100_000, default: 5_000, description: 'raw occurrences (and log records) deleted per pruning statement (small batches keep ingestion flowing)' }),
  INGEST_MAX_OCCURRENCES: Type.Integer({ minimum: 1, maximum: 100_000, default: 10_000, description: 'occurrences per envelope (or OTLP request); more is 413' }),
  INGEST_MAX_LOG_RECORDS: Type.Integer({ minimum: 1, maximum: 100_000, default: 10_000, description: 'log records per envelope (or OTLP logs request); more is 413' }),
  INGEST_RATE_LIMIT_PER_SECOND: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 100, description: 'envelopes per second per ingestion key; more is 429 with Retry-After' }),
  SQLITE_WRITER_THREAD: Flag(
    true,
    'SQLite: ingest transactions run on a thread of their own with its own connection, so SQLite works on one core while requests are parsed and validated on the other (acknowledged after the commit either way); false (or 0) runs them on the main thread',
  ),
  INGEST_MAX_ROWS_PER_TRANSACTION: Type.Integer({ minimum: 1, maximum: 200_000, default: 20_000, description: 'occurrences and log records committed together at most (envelopes arriving together share a transaction)' }),
  CLICKHOUSE_URL: Type.Optional(
    Type.String({ pattern: '^https?://', description: 'http(s):// URL of a ClickHouse server (its HTTP interface): telemetry (spans, rollups, error groups, log records) is stored and read there instead of the service database; users, sessions, keys and settings stay in the service database' }),
  ),
  CLICKHOUSE_DATABASE: Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$', default: 'playstack_telemetry', description: 'ClickHouse database of the telemetry tables (created with them at start when missing)' }),
  CLICKHOUSE_CLUSTER: Type.Optional(
    Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$', description: "cluster of the ClickHouse servers' remote_servers that telemetry is sharded over: this instance writes to its server's shard tables (the database name with _shard appended) and reads through Distributed tables over every shard; unset: one server" }),
  ),
  APDEX_THRESHOLD_MS: Type.Number({ minimum: 1, maximum: 600_000, default: 500, description: 'Apdex threshold T in milliseconds for services without one of their own (set per service in the dashboard)' }),
  OCCURRENCE_SEARCH_WINDOW: Type.Integer({ minimum: 1, maximum: 10_000_000, default: 50_000, description: 'occurrences a search with row filters (attributes, duration, error type, HTTP status class) checks at most: the newest of the range' }),
  ROLLUP_TIER_INTERVAL_SECONDS: Type.Integer({ minimum: 1, maximum: 3600, default: 5, description: 'how often new data is folded into the rollup tiers long-range queries read, and on ClickHouse the dependency edges of settled minutes resolved (queries stay exact in between)' }),
  INGEST_KEY_LAST_USED_FLUSH_SECONDS: Type.Integer({ minimum: 1, maximum: 3600, default: 30, description: 'how often ingestion keys\' last-used times are written' }),
  ALERT_EVALUATION_INTERVAL_SECONDS: Type.Integer({ minimum: 1, maximum: 3600, default: 10, description: 'how often an instance checks for alert minutes due (each minute is evaluated once, by the instance holding the lease)' }),
  ALERT_EVALUATION_DELAY_SECONDS: Type.Integer({ minimum: 0, maximum: 600, default: 30, description: 'a minute\'s alert rules are evaluated this long after it ends, so late data still counts' }),
  ALERT_RULES_FILE: Type.Optional(Type.String({ minLength: 1, description: 'YAML or JSON file of alert rules (docs/alerts.md, "Alerts as code"), loaded at start and read-only in the dashboard; a file with problems stops the start, listing every one' })),
  ALERT_CATCH_UP_MINUTES: Type.Integer({ minimum: 1, maximum: 10_080, default: 180, description: 'minutes missed while no instance ran that are evaluated when one starts again (the newest ones)' }),
  SESSION_IDLE_TIMEOUT_MINUTES: Type.Integer({ minimum: 1, maximum: 43_200, default: 120, description: 'a dashboard session ends after this long without a request' }),
  SESSION_MAX_AGE_HOURS: Type.Integer({ minimum: 1, maximum: 8_760, default: 168, description: 'a dashboard session ends this long after sign-in, however active' }),
  PASSWORD_RESET_TTL_MINUTES: Type.Integer({ minimum: 5, maximum: 1_440, default: 30, description: 'lifetime of a password reset token' }),
  INVITATION_TTL_HOURS: Type.Integer({ minimum: 1, maximum: 720, default: 168, description: 'lifetime of an invitation token' }),
  OBSERVABILITY_SECRET: Type.Optional(
    Type.String({ minLength: 32, description: 'HMAC key the trusted-device cookies of dashboard sign-in are signed with (32+ chars, the same on every instance); unset: generated once into DATA_DIR/observability-secret (mode 0600), for one machine' }),
  ),
  OBSERVABILITY_PREVIOUS_SECRETS: Type.Optional(
    Type.String({ pattern: '^[^,]{32,}(,[^,]{32,})*$', description: 'comma-separated former OBSERVABILITY_SECRET values that still verify trusted-device cookies, never sign them' }),
  ),
  PUBLIC_URL: Type.Optional(Type.String({ pattern: '^https?://[^/]+', description: 'the dashboard\'s public URL (links in emails; also an allowed Origin)' })),
  SMTP_URL: Type.Optional(Type.String({ pattern: '^smtps?://', description: 'smtp:// or smtps:// URL for password reset mail; unset writes the mail to the log' })),
  MAIL_FROM: Type.String({ default: 'Observability <no-reply@localhost>', minLength: 3, description: 'sender address of password reset mail' }),
});

export type ObservabilityConfig = Static<typeof observabilityConfigSchema>;

/** Reads and validates the observability service's configuration. */
export function loadObservabilityConfig(env: Record<string, string | undefined> = process.env): Readonly<ObservabilityConfig> {
  return loadConfig(observabilityConfigSchema, env);
}

import { join } from 'node:path';
import { createServiceApp, currentCommit, packageInfo, readOrCreateSecretFile, sqlitePragmaOptions, type App, type Clock } from '@playstack/server-kit';
import type { ObservabilityApp } from './database.js';
import type { ObservabilityConfig } from './config.js';
import { observabilityMigrations } from './migrations/index.js';
import { dashboardPlugin, defaultDashboardDir } from './web/dashboard-plugin.js';
import { ingestionKeysPlugin } from './keys/ingestion-keys-plugin.js';
import { sessionGuardPlugin } from './auth/session-guard-plugin.js';
import { authRoutes } from './auth/auth-routes.js';
import { adminRoutes } from './admin/admin-routes.js';
import { retentionPlugin } from './retention/retention-plugin.js';
import { ingestionPlugin } from './ingest/ingestion-plugin.js';
import { otlpHttpRoutes } from './otlp/otlp-http-routes.js';
import { traceSignal } from './otlp/otlp-traces.js';
import { logSignal } from './otlp/otlp-logs.js';
import { logRoutes } from './logs/log-routes.js';
import { otlpGrpcPlugin } from './otlp/otlp-grpc-server.js';
import { queryRoutes } from './query/query-routes.js';
import { serviceSettingsRoutes } from './service-settings/service-settings-routes.js';
import { usageRoutes } from './usage/usage-routes.js';
import { healthRoutes } from './health/health-routes.js';
import { tierCompactorPlugin } from './telemetry/tier-compactor-plugin.js';
import { rollupRebuildPlugin } from './storage/rollup-rebuild-plugin.js';
import { rollupRebuildParts } from './rollup-rebuild-parts.js';
import { errorRoutes } from './errors/error-routes.js';
import { alertsPlugin } from './alerts/alerts-plugin.js';
import { telemetryStorePlugin } from './telemetry/telemetry-store-plugin.js';
import { alertRoutes } from './alerts/alert-routes.js';

export const apiVersion = '0.1.0';

/** The service database's file name under DATA_DIR (SQLite). */
const sqliteFile = 'observability.sqlite';

export interface BuildOptions {
  clock?: Clock;
  /** Where log lines go instead of stdout (tests read them). */
  logStream?: { write(line: string): void };
}

/** Builds the observability service: platform first, then the features. */
export async function buildApp(config: Readonly<ObservabilityConfig>, options: BuildOptions = {}): Promise<ObservabilityApp> {
  const { name, version } = packageInfo(new URL('../package.json', import.meta.url));
  return createServiceApp({
    config,
    version: { name, version, commit: currentCommit(), apiVersion },
    metricsPrefix: 'observability',
    sqliteFile,
    migrations: observabilityMigrations,
    migrationTablePrefix: 'obs',
    bodyLimitBytes: config.OBSERVABILITY_BODY_LIMIT_BYTES,
    clock: options.clock,
    logStream: options.logStream,
    openapi: {
      info: {
        title: 'Observability ingestion and dashboard service',
        version: apiVersion,
        description: 'Protocol v1 and OTLP ingestion (traces and logs), and the read API behind the dashboards.',
      },
      tags: [
        { name: 'system', description: 'Health, readiness, version, metrics' },
        { name: 'auth', description: 'Dashboard sign-in, sessions, passwords and invitations (an application API, not a stable one)' },
        { name: 'admin', description: 'Users, invitations, ingestion keys and retention; admins only' },
        { name: 'ingest', description: 'Protocol v1 and OTLP/HTTP (protobuf and JSON; traces and logs) ingestion, authenticated with ingestion keys; OTLP/gRPC is served on its own port' },
        { name: 'query', description: 'What the dashboards read: services, summary, trend, occurrences, traces, database, dependencies' },
        { name: 'errors', description: 'Errors grouped by fingerprint: the groups, one group, and its status (resolve, ignore, reopen)' },
        { name: 'logs', description: 'Log records: search (text, severity, trace, attributes) and counts over time' },
        { name: 'usage', description: 'Usage per tenant, its trend and export' },
        { name: 'health', description: 'Ingestion, storage and database status for operators' },
        { name: 'alerts', description: 'Alert rules, their state and history, silences and notification channels; admins change them' },
      ],
      securitySchemes: {
        ingestionKey: { type: 'http', scheme: 'bearer', description: 'An ingestion key, or the legacy SERVICE_API_KEY' },
        session: { type: 'apiKey', in: 'cookie', name: 'obs_session', description: 'The dashboard session cookie set by sign-in' },
      },
    },
    // Traced (when OTEL_* says so) but never its ingest: telemetry about ingesting telemetry would
    // come back through the same ingest, one more batch per batch, sent here or to a Collector.
    untracedRequests: (request) => request.routeOptions.schema?.tags?.includes('ingest') === true,
    features: (app) => registerFeatures(app, config),
  });
}

async function registerFeatures(app: App, config: Readonly<ObservabilityConfig>): Promise<void> {
  const secrets = serviceSecrets(config, app.log);
  // Features, each a plugin from its own folder.
  await app.register(ingestionKeysPlugin, {
    legacyKey: config.SERVICE_API_KEY,
    bootstrapKeyFile: config.INGESTION_KEY_FILE,
    lastUsedFlushIntervalMs: config.INGEST_KEY_LAST_USED_FLUSH_SECONDS * 1000,
  });
  await app.register(sessionGuardPlugin, {
    idleTimeoutMs: config.SESSION_IDLE_TIMEOUT_MINUTES * 60_000,
    absoluteLifetimeMs: config.SESSION_MAX_AGE_HOURS * 3_600_000,
    passwordResetTtlMs: config.PASSWORD_RESET_TTL_MINUTES * 60_000,
    invitationTtlMs: config.INVITATION_TTL_HOURS * 3_600_000,
    publicUrl: config.PUBLIC_URL,
    smtpUrl: config.SMTP_URL,
    mailFrom: config.MAIL_FROM,
    deviceSecrets: secrets,
  });
  await app.register(authRoutes, { prefix: '/api/v1/auth' });
  // Before anything ingests or reads: derived data whose rules changed is recomputed first.
  await app.register(rollupRebuildPlugin, { parts: rollupRebuildParts });
  await app.register(telemetryStorePlugin, {
    maxRowsPerTransaction: config.INGEST_MAX_ROWS_PER_TRANSACTION,
    writerThread: config.SQLITE_WRITER_THREAD ? { path: join(config.DATA_DIR, sqliteFile), pragmas: sqlitePragmaOptions(config) } : undefined,
    clickHouse: config.CLICKHOUSE_URL === undefined ? undefined : { url: config.CLICKHOUSE_URL, database: config.CLICKHOUSE_DATABASE, cluster: config.CLICKHOUSE_CLUSTER },
  });
  await app.register(retentionPlugin, {
    defaultDays: config.RETENTION_DAYS,
    pruneIntervalMs: config.RETENTION_PRUNE_INTERVAL_SECONDS * 1000,
    pruneBatchRows: config.RETENTION_PRUNE_BATCH_ROWS,
  });
  await app.register(adminRoutes, { prefix: '/api/v1/admin' });
  await app.register(ingestionPlugin, {
    keys: app.ingestionKeys,
    limits: { maxBodyBytes: config.OBSERVABILITY_BODY_LIMIT_BYTES, maxDecompressedBytes: config.OBSERVABILITY_BODY_LIMIT_BYTES },
    maxOccurrences: config.INGEST_MAX_OCCURRENCES,
    maxLogRecords: config.INGEST_MAX_LOG_RECORDS,
    rateLimitPerSecond: config.INGEST_RATE_LIMIT_PER_SECOND,
  });
  const otlpSignals = (scope: App) => [traceSignal(scope.ingestion, scope.clock), logSignal(scope.ingestion, scope.clock)];
  await app.register(otlpHttpRoutes, { signals: otlpSignals });
  await app.register(otlpGrpcPlugin, {
    port: config.OTLP_GRPC_PORT,
    host: config.HOST,
    tls: { certFile: config.OTLP_GRPC_TLS_CERT_FILE, keyFile: config.OTLP_GRPC_TLS_KEY_FILE },
    shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
    signals: otlpSignals,
  });

  await app.register(tierCompactorPlugin, { intervalMs: config.ROLLUP_TIER_INTERVAL_SECONDS * 1000 });
  await app.register(queryRoutes, { apdexThresholdDefaultMs: config.APDEX_THRESHOLD_MS, occurrenceSearchWindow: config.OCCURRENCE_SEARCH_WINDOW });
  await app.register(serviceSettingsRoutes, { apdexThresholdDefaultMs: config.APDEX_THRESHOLD_MS });
  await app.register(errorRoutes);
  await app.register(logRoutes);
  await app.register(usageRoutes);
  await app.register(healthRoutes);
  await app.register(alertsPlugin, {
    evaluationIntervalMs: config.ALERT_EVALUATION_INTERVAL_SECONDS * 1000,
    evaluationDelayMs: config.ALERT_EVALUATION_DELAY_SECONDS * 1000,
    maxCatchUpMinutes: config.ALERT_CATCH_UP_MINUTES,
    apdexThresholdDefaultMs: config.APDEX_THRESHOLD_MS,
    publicUrl: config.PUBLIC_URL,
    secrets,
    smtpUrl: config.SMTP_URL,
    mailFrom: config.MAIL_FROM,
    rulesFile: config.ALERT_RULES_FILE,
  });
  await app.register(alertRoutes, { apdexThresholdDefaultMs: config.APDEX_THRESHOLD_MS, rulesFile: config.ALERT_RULES_FILE, publicUrl: config.PUBLIC_URL });

  await app.register(dashboardPlugin, { rootDir: config.OBSERVABILITY_WEB_DIR ?? defaultDashboardDir });
}

/**
 * OBSERVABILITY_SECRET (then its former values), or a secret generated once into
 * DATA_DIR/observability-secret: never in the database, whose backups could then forge cookies.
 */
function serviceSecrets(config: Readonly<ObservabilityConfig>, log: App['log']): Buffer[] {
  const previous = config.OBSERVABILITY_PREVIOUS_SECRETS?.split(',').map((secret) => Buffer.from(secret, 'utf8')) ?? [];
  const current = config.OBSERVABILITY_SECRET
    ? Buffer.from(config.OBSERVABILITY_SECRET, 'utf8')
    : readOrCreateSecretFile(join(config.DATA_DIR, 'observability-secret'), { minBytes: 32, what: 'the observability secret', configuredBy: 'OBSERVABILITY_SECRET', log });
  return [current, ...previous];
}

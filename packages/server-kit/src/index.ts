// Route schemas of every service may use @fastify/swagger's members (hide, tags...).
/// <reference types="@fastify/swagger" preserve="true" />
export { commonErrorStatusByCode, defineErrorCodes, errorStatusOf, isErrorCode, type ErrorCode, type ServiceErrorCodes } from './errors/error-codes.js';
export { ApiError, type ErrorBody } from './errors/api-error.js';
export { installErrorHandling, sendApiError, toApiError } from './errors/error-handler.js';
export { ConfigError, configSchema, Flag, loadConfig, Port } from './config/load-config.js';
export { commonConfigProperties } from './config/common-config.js';
export { createServer, type App, type ServerOptions } from './http/create-server.js';
export { requestIdFor } from './http/request-id.js';
export { findOddValue, type OddValue } from './http/odd-values.js';
export { createLogger, loggerOptions, resolveLogFormat, type LogFormat, type LoggerSettings, type LogLevel } from './logging/logger.js';
export { formatLine, type LineSink } from './logging/pretty-lines.js';
export { RequestLogController, type RequestLogMode } from './logging/request-log.js';
export { likelyTypos, type LikelyTypo } from './config/likely-typos.js';
export { redactUrl } from './config/redact-url.js';
export { openDatabase, type Database, type DatabaseOptions, type Dialect } from './db/database.js';
export { applySqlitePragmas, sqliteDatabase, type SqlitePragmaOptions } from './db/sqlite-connection.js';
export { databaseView, tableView } from './db/table-view.js';
export { directStatementsOf, runStatementsDirectly, type SqliteStatements } from './db/direct-statements.js';
export { executePrepared, prepareOnPostgres } from './db/prepared-statements.js';
export { SqliteDatabase } from './db/sqlite-driver.js';
export { migrateToLatest, pendingMigrations, type ServiceMigration } from './db/migrator.js';
export { NoChangeFeed, PostgresChangeFeed, RedisChangeFeed, type ChangeFeed, type ChangeHandlers } from './db/change-feed.js';
export { deferToCommit, gatherBeforeCommit, runGathered, type GatheredStatement } from './db/before-commit.js';
export { autoIncrementPrimaryKey, greatest, least, portable } from './db/column-types.js';
export { connectRedis, type Redis, type RedisConnectionOptions } from './redis/redis.js';
export { RedisHealth, type RedisHealthOptions, type RedisRecovery } from './redis/redis-health.js';
export { metricsPlugin, type MetricsOptions } from './metrics/metrics.js';
export { Readiness, type DegradationCheck, type ReadinessCheck, type ReadinessNote, type ReadinessReport } from './system/readiness.js';
export { ManualClock, systemClock, type Clock } from './system/clock.js';
export { mulberry32 } from './system/mulberry32.js';
export { systemRoutes } from './system/system-routes.js';
export { ErrorResponse, errorResponses, HealthResponse, ReadinessResponse, VersionResponse, type VersionInfo } from './system/system-schemas.js';
export { createServiceApp, sqlitePragmaOptions, type CommonConfig, type ServiceApp, type ServiceAppOptions } from './platform/service-app.js';
export { activeSpanIds, activeTracing, captureContext, inSpan, runInContext, recordFailure, startTracing, tracingRequested, type TraceContext, type Tracing, type TracingIdentity } from './telemetry/tracing.js';
export { tracedFetch } from './telemetry/fetch-spans.js';
export type { RequestSpanOptions } from './telemetry/request-spans.js';
export { runService, type ServiceDefinition } from './platform/run-service.js';
export type { NotReadyBody } from './platform/boot-server.js';
export { currentCommit, packageInfo } from './platform/version-info.js';
export { hashOpaqueToken, newOpaqueToken, opaqueTokenBytes, secretsMatch } from './auth/opaque-token.js';
export { hashPassword, maxPasswordLength, minPasswordLength, passwordHashParameters, passwordNeedsRehash, verifyPassword, verifyPasswordAgainstNothing } from './auth/password-hashing.js';
export { KyselySessionStore } from './accounts/kysely-session-store.js';
export { SessionManager, csrfTokenFor, csrfTokenMatches, type ActiveSession, type SessionPolicy, type SessionRecord, type SessionStore, type StartedSession } from './auth/session-manager.js';
export { assertCsrfToken, assertSameOrigin, csrfHeaderName, isStateChanging, requestOrigin } from './auth/browser-request-guard.js';
export { clearedSessionCookieOptions, sessionCookieOptions } from './auth/session-cookie.js';
export { attemptCounterFor, InMemoryAttemptCounter, RedisAttemptCounter, type AttemptCounter, type WindowCount } from './auth/attempt-counter.js';
export { LoginThrottle, defaultLoginThrottlePolicy, type LoginThrottlePolicy, type SignInSource, type ThrottleLimit } from './auth/login-throttle.js';
export { TrustedDevices, accountKey, defaultTrustedDeviceLifetimeMs, type TrustedDevicesOptions } from './auth/trusted-device.js';
export { readOrCreateSecretFile, type SecretFileOptions } from './auth/secret-file.js';
export { createMailer, type MailMessage, type Mailer, type MailerOptions } from './auth/mailer.js';
export { accountsTablesMigration } from './accounts/accounts-migration.js';
export type { AccountRow, AccountsTables, Role, SessionRow } from './accounts/account-tables.js';
export { accountsDb, countAccounts, type AccountsDb } from './accounts/accounts-store.js';
export {
  AccountsService,
  normalizeEmail,
  type AccountsServiceOptions,
  type InvitationStatus,
  type InvitationSummary,
  type ManagedAccount,
  type PasswordResetOptions,
  type PublicAccount,
  type ResumedSession,
  type SignedIn,
  type SignInOutcome,
} from './accounts/accounts-service.js';

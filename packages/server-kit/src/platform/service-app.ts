import swagger from '@fastify/swagger';
import { Type, type Static } from '@sinclair/typebox';
import { commonConfigProperties } from '../config/common-config.js';
import { NoChangeFeed, PostgresChangeFeed, RedisChangeFeed, type ChangeFeed } from '../db/change-feed.js';
import { openDatabase, type Database } from '../db/database.js';
import type { SqlitePragmaOptions } from '../db/sqlite-connection.js';
import { migrateToLatest, type ServiceMigration } from '../db/migrator.js';
import { createServer, type App } from '../http/create-server.js';
import { metricsPlugin } from '../metrics/metrics.js';
import { connectRedis, type Redis } from '../redis/redis.js';
import { RedisHealth } from '../redis/redis-health.js';
import { systemClock, type Clock } from '../system/clock.js';
import { Readiness } from '../system/readiness.js';
import type { RequestSpanOptions } from '../telemetry/request-spans.js';
import { startLogExport, type LogExport } from '../telemetry/log-export.js';
import { serviceResource, startTracing, type Tracing } from '../telemetry/tracing.js';
import { systemRoutes } from '../system/system-routes.js';
import { ErrorResponse, type VersionInfo } from '../system/system-schemas.js';

const commonConfigObject = Type.Object(commonConfigProperties);
/** The common configuration every service's config includes. */
export type CommonConfig = Readonly<Static<typeof commonConfigObject>>;

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The service's database. Declared once for every service of a program, it names no tables:
     * each service's plugins and routes take its `ServiceApp` (`GameApp`, `ObservabilityApp`),
     * whose `database` is typed by that service's tables.
     */
    database: Database;
    /** Present when `REDIS_URL` is configured. */
    redis: Redis | undefined;
    /** Whether Redis is usable right now, with `orElse` for a fallback; present with `redis`. */
    redisHealth: RedisHealth | undefined;
    /** Changes announced between the instances sharing the database (LISTEN/NOTIFY on PostgreSQL). */
    changes: ChangeFeed;
    clock: Clock;
    readiness: Readiness;
  }
}

/**
 * A service's app: `App` with `database` typed by the service's tables (`DB`). Fastify hands
 * every plugin the same instance; a service's plugins and routes declare this type for it, so
 * they query their tables without an accessor or a cast.
 */
export type ServiceApp<DB> = Omit<App, 'database'> & { readonly database: Database<DB> };

/** What a service says about itself in its OpenAPI document. */
export interface ServiceOpenApi {
  info: { title: string; version: string; description: string };
  tags: Array<{ name: string; description: string }>;
  securitySchemes?: Record<string, { type: 'http' | 'apiKey'; scheme?: string; in?: 'cookie' | 'header'; name?: string; description: string }>;
}

export interface ServiceAppOptions {
  config: CommonConfig;
  version: VersionInfo;
  /** Metric name prefix, e.g. `game`. */
  metricsPrefix: string;
  /** SQLite file name under DATA_DIR. */
  sqliteFile: string;
  migrations: Readonly<Record<string, ServiceMigration>>;
  migrationTablePrefix: string;
  bodyLimitBytes: number;
  openapi: ServiceOpenApi;
  clock?: Clock | undefined;
  /** Where log lines go instead of stdout (tests read them). */
  logStream?: { write(line: string): void } | undefined;
  /**
   * Registers the service's features on the platform. When it throws (an invalid manifest file,
   * say), the app is closed before the error propagates, so the database and Redis the platform
   * opened are not left open behind it.
   */
  features?: (app: App) => Promise<void>;
  /**
   * Whether the service's log lines are exported as OpenTelemetry log records when the `OTEL_*`
   * variables ask for it (`startLogExport`). Not for a service whose every request logs and which
   * would receive its own records: that would be a loop.
   */
  exportLogs?: boolean;
  /** Which requests create no telemetry at all when tracing is on (the observability ingest). */
  untracedRequests?: RequestSpanOptions['untraced'];
}

const readinessTimeoutMs = 2_000;

/** A package name without its scope (`@playstack/game-service` -> `game-service`): the name in logs. */
export function serviceName(packageName: string): string {
  return packageName.replace(/^@[^/]+\//, '');
}

/**
 * The platform a service's features are added to: server, database (migrated), optional Redis,
 * readiness, metrics, OpenAPI and the system routes. Resources close when the app closes.
 */
export async function createServiceApp(options: ServiceAppOptions): Promise<App> {
  const { config } = options;
  // Started from the standard OTEL_* variables, or not at all (then nothing below is traced).
  const identity = { serviceName: serviceName(options.version.name), serviceVersion: options.version.version };
  const tracing = await startTracing(identity);
  let logExport: LogExport | undefined;
  try {
    logExport = options.exportLogs ? await startLogExport(serviceResource(identity)) : undefined;
    return await assembleServiceApp(options, tracing, logExport);
  } catch (error) {
    await logExport?.shutdown();
    await tracing?.shutdown();
    throw error;
  }
}

/** The SQLite settings the configuration asks for (`applySqlitePragmas`). */
export function sqlitePragmaOptions(config: Pick<CommonConfig, 'SQLITE_SYNCHRONOUS' | 'SQLITE_MMAP_MB' | 'SQLITE_CACHE_MB' | 'SQLITE_WAL_AUTOCHECKPOINT_PAGES'>): SqlitePragmaOptions {
  return {
    sqliteSynchronous: config.SQLITE_SYNCHRONOUS,
    sqliteMmapBytes: config.SQLITE_MMAP_MB * 1024 * 1024,
    sqliteCacheBytes: config.SQLITE_CACHE_MB * 1024 * 1024,
    sqliteWalAutocheckpointPages: config.SQLITE_WAL_AUTOCHECKPOINT_PAGES,
  };
}

async function assembleServiceApp(options: ServiceAppOptions, tracing: Tracing | undefined, logExport: LogExport | undefined): Promise<App> {
  const { config } = options;
  const app = createServer({
    logLevel: config.LOG_LEVEL,
    log: { name: serviceName(options.version.name), format: config.LOG_FORMAT, requests: config.LOG_REQUESTS, slowRequestMs: config.LOG_SLOW_REQUEST_MS },
    trustProxy: config.TRUST_PROXY,
    bodyLimitBytes: options.bodyLimitBytes,
    logStream: options.logStream,
    tracing: tracing && { tracing, requests: { untraced: options.untracedRequests } },
    exportLogLine: logExport?.exportLine,
  });
  const database = await openDatabase({
    url: config.DATABASE_URL,
    schema: config.DATABASE_SCHEMA,
    poolSize: config.DATABASE_POOL_SIZE,
    preparedStatements: config.DATABASE_PREPARED_STATEMENTS === 'on',
    dataDir: config.DATA_DIR,
    fileName: options.sqliteFile,
    ...sqlitePragmaOptions(config),
  });
  let redis: Redis | undefined;
  try {
    await migrateToLatest(database.db, database.dialect, options.migrations, options.migrationTablePrefix);
    if (config.REDIS_URL) redis = await connectRedis(config.REDIS_URL, { keyPrefix: config.REDIS_KEY_PREFIX, commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS });
  } catch (error) {
    await database.close();
    throw error;
  }

  const readiness = new Readiness();
  readiness.register('database', () => database.ping());

  app.decorate('database', database);
  app.decorate('redis', redis);
  app.decorate('redisHealth', undefined);
  app.decorate('changes', new NoChangeFeed());
  app.decorate('clock', options.clock ?? systemClock);
  app.decorate('readiness', readiness);
  app.addHook('onClose', async () => {
    await app.changes.close();
    app.redisHealth?.close();
    if (redis) await redis.quit().catch(() => redis?.disconnect());
    await database.close();
    await Promise.all([tracing?.shutdown(), logExport?.shutdown()]);
  });

  app.addSchema(ErrorResponse);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: options.openapi.info,
      tags: options.openapi.tags,
      components: {
        securitySchemes: {
          ...options.openapi.securitySchemes,
          metricsToken: { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN, when configured' },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  await app.register(metricsPlugin, { token: config.METRICS_TOKEN, prefix: options.metricsPrefix });
  if (redis) {
    const health = new RedisHealth(redis, { log: app.log, registry: app.metrics, metricsPrefix: options.metricsPrefix });
    await health.start();
    app.redisHealth = health;
    // Without Redis the service still serves, on per-instance and database fallbacks: degraded,
    // not unready (every instance shares the one Redis; taking them all out would be an outage).
    readiness.registerDegradation('redis', async () => {
      await health.check();
      return health.describe();
    });
  }
  if (database.dialect === 'postgres' && config.DATABASE_URL) {
    app.changes = new PostgresChangeFeed({ url: config.DATABASE_URL, schema: config.DATABASE_SCHEMA, db: database.db, log: app.log });
  } else if (app.redisHealth) {
    app.changes = new RedisChangeFeed({ health: app.redisHealth, log: app.log });
  }
  await app.register(systemRoutes, { version: options.version, readiness, readinessTimeoutMs });
  app.get('/openapi.json', { schema: { tags: ['system'], summary: 'This OpenAPI document' } }, async () => app.swagger());
  try {
    await options.features?.(app);
  } catch (error) {
    await app.close().catch((closeError: unknown) => app.log.error({ err: closeError }, 'closing after a failed boot failed'));
    throw error;
  }
  return app;
}

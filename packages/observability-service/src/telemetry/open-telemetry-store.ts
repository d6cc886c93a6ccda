import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { commonConfigProperties, configSchema, loadConfig, migrateToLatest, openDatabase, pendingMigrations, sqlitePragmaOptions, systemClock, type Database } from '@playstack/server-kit';
import type { ObservabilityDatabase } from '../database.js';
import { sqlLogStore } from '../logs/index.js';
import { observabilityMigrations } from '../migrations/index.js';
import { rollupRebuildParts } from '../rollup-rebuild-parts.js';
import { runRequestedRebuilds } from '../storage/rollup-rebuild.js';
import { clickHouseMigrations } from './clickhouse/clickhouse-migrations.js';
import { ClickHouseTelemetryStore } from './clickhouse/clickhouse-telemetry-store.js';
import { sqlTelemetryDatabase } from './sql-telemetry-database.js';
import { SqlTelemetryStore } from './sql-telemetry-store.js';
import type { TelemetryStore } from './telemetry-store.js';
import { describeStore, type TelemetryStoreLocation } from './telemetry-store-location.js';

// A telemetry store opened outside the service, where a `TelemetryStoreLocation` names it: what
// the copy command (telemetry-copy/) reads from and writes to.

/** The table prefix of the service's migration records (app.ts). */
const migrationTablePrefix = 'obs';
/** PostgreSQL connections per store: a standalone store reads or writes one batch at a time. */
const poolSize = 2;

/** A store that cannot be opened, or not as asked: the message says which and why, in one line. */
export class TelemetryStoreUnavailable extends Error {}

/** An opened store, and how to close it once its writes have settled. */
export interface StandaloneTelemetryStore {
  store: TelemetryStore;
  close(): Promise<void>;
}

export interface StandaloneStoreOptions {
  /** `source` is read and never changed; `target` is migrated to this release's schema first. */
  role: 'source' | 'target';
  /** Rows written together at most. */
  maxRowsPerWrite: number;
  /** How messages name the store (`describeStore` by default). */
  label?: string;
  /** For SQLite's settings (SQLITE_MMAP_MB, SQLITE_CACHE_MB, SQLITE_WAL_AUTOCHECKPOINT_PAGES), as the service reads them. */
  env: Readonly<Record<string, string | undefined>>;
}

/** The message of a failure, whatever threw it (AggregateError carries its reasons inside). */
export function reasonOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return [...new Set(error.errors.map(reasonOf))].join('; ');
  if (error instanceof Error) return error.message || (error as { code?: string }).code || error.name;
  return String(error);
}

const sqliteSettings = configSchema({
  SQLITE_MMAP_MB: commonConfigProperties.SQLITE_MMAP_MB,
  SQLITE_CACHE_MB: commonConfigProperties.SQLITE_CACHE_MB,
  SQLITE_WAL_AUTOCHECKPOINT_PAGES: commonConfigProperties.SQLITE_WAL_AUTOCHECKPOINT_PAGES,
});

/**
 * The SQL store of a service database, its schema checked (a source must be at this release's:
 * the service migrates it at start) or migrated, with the rebuilds migrations asked for run
 * while it is still empty (a target). A target's commits are synchronous=FULL on SQLite, so
 * what the copy recorded as copied survives a power loss too.
 */
async function openSqlStore(location: Extract<TelemetryStoreLocation, { kind: 'sqlite' | 'postgres' }>, options: StandaloneStoreOptions, name: string): Promise<StandaloneTelemetryStore> {
  if (location.kind === 'sqlite' && options.role === 'source' && !existsSync(join(location.dataDir, location.fileName))) {
    throw new TelemetryStoreUnavailable(`${name} has no telemetry: there is no ${join(location.dataDir, location.fileName)}`);
  }
  const settings = loadConfig(sqliteSettings, { ...options.env });
  const database: Database<ObservabilityDatabase> = await openDatabase<ObservabilityDatabase>({
    url: location.kind === 'postgres' ? location.url : undefined,
    schema: location.kind === 'postgres' ? location.schema : 'public',
    poolSize,
    dataDir: location.kind === 'sqlite' ? location.dataDir : '.',
    fileName: location.kind === 'sqlite' ? location.fileName : 'unused.sqlite',
    ...sqlitePragmaOptions({ ...settings, SQLITE_SYNCHRONOUS: options.role === 'target' ? 'full' : 'normal' }),
  }).catch((error: unknown) => {
    throw new TelemetryStoreUnavailable(`${name} does not answer: ${reasonOf(error)}`);
  });
  try {
    await database.ping().catch((error: unknown) => {
      throw new TelemetryStoreUnavailable(`${name} does not answer: ${reasonOf(error)}`);
    });
    if (options.role === 'source') {
      const pending = await pendingMigrations(database.db, database.dialect, observabilityMigrations, migrationTablePrefix);
      if (pending.length === Object.keys(observabilityMigrations).length) throw new TelemetryStoreUnavailable(`${name} has no telemetry: the observability service never ran on it`);
      if (pending.length > 0) throw new TelemetryStoreUnavailable(`${name} is at an older release's schema (${pending.length} migrations to run): start this release's observability service on it once (it migrates it at start)`);
    } else {
      await migrateToLatest(database.db, database.dialect, observabilityMigrations, migrationTablePrefix);
      await runRequestedRebuilds(database, rollupRebuildParts);
    }
  } catch (error) {
    await database.close();
    throw error;
  }
  const store = new SqlTelemetryStore({
    database: sqlTelemetryDatabase({ database }),
    clock: systemClock,
    logs: sqlLogStore(database),
    maxRowsPerTransaction: options.maxRowsPerWrite,
    countsIngestion: false,
  });
  return {
    store,
    async close() {
      await store.idle();
      await database.close();
    },
  };
}

/** The ClickHouse store of a database on one server, its schema checked (a source) or created and upgraded (a target). */
async function openClickHouseStore(location: Extract<TelemetryStoreLocation, { kind: 'clickhouse' }>, options: StandaloneStoreOptions, name: string): Promise<StandaloneTelemetryStore> {
  const store = new ClickHouseTelemetryStore({ url: location.url, database: location.database, clock: systemClock, maxRowsPerInsert: options.maxRowsPerWrite, countsIngestion: false });
  try {
    const pending = await store.clickHouse.pendingMigrations().catch((error: unknown) => {
      throw new TelemetryStoreUnavailable(`${name} does not answer: ${reasonOf(error)}`);
    });
    if (options.role === 'source') {
      if (pending.length === clickHouseMigrations.length) throw new TelemetryStoreUnavailable(`${name} has no telemetry: the observability service never stored any there`);
      if (pending.length > 0) throw new TelemetryStoreUnavailable(`${name} is at an older release's schema: start this release's observability service on it once (it upgrades it at start)`);
    } else {
      await store.migrate();
    }
  } catch (error) {
    await store.close();
    throw error;
  }
  return { store, close: () => store.close() };
}

/** Opens the store at `location`; its writes are not counted as ingestion (they copy rows received before). */
export function openTelemetryStore(location: TelemetryStoreLocation, options: StandaloneStoreOptions): Promise<StandaloneTelemetryStore> {
  const name = options.label ?? describeStore(location);
  return location.kind === 'clickhouse' ? openClickHouseStore(location, options, name) : openSqlStore(location, options, name);
}

import fp from 'fastify-plugin';
import { sqlLogStore, type LogStore } from '../logs/index.js';
import { SqlTelemetryStore, type SqlTelemetryStoreOptions } from './sql-telemetry-store.js';
import type { TelemetryStore } from './telemetry-store.js';
import { sqlTelemetryDatabase } from './sql-telemetry-database.js';
import { ClickHouseTelemetryStore } from './clickhouse/clickhouse-telemetry-store.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Where telemetry is written, read, pruned and measured. */
    telemetry: TelemetryStore;
    /** Where log records are searched, counted and pruned: the telemetry store's (`telemetry.logs`). */
    logStore: LogStore;
  }
}

export interface TelemetryStorePluginOptions {
  /** Rows (occurrences and log records) committed together at most. */
  maxRowsPerTransaction: number;
  /** SQLite: the service database's file and settings, to write it on a thread of its own (SQLITE_WRITER_THREAD). */
  writerThread?: SqlTelemetryStoreOptions['writerThread'];
  /** ClickHouse holds the telemetry (CLICKHOUSE_URL, CLICKHOUSE_DATABASE); unset: the service database. */
  clickHouse?: { url: string; database: string; cluster?: string | undefined } | undefined;
}

/**
 * Decorates `app.telemetry` and `app.logStore`: the ClickHouse store (log records included) when
 * configured, its schema migrated first, else the SQL store over the service database.
 */
export const telemetryStorePlugin = fp<TelemetryStorePluginOptions>(
  async (app, options) => {
    if (options.clickHouse) {
      const store = new ClickHouseTelemetryStore({
        url: options.clickHouse.url,
        database: options.clickHouse.database,
        cluster: options.clickHouse.cluster,
        clock: app.clock,
        maxRowsPerInsert: options.maxRowsPerTransaction,
      });
      try {
        await store.migrate();
      } catch (error) {
        await store.close();
        throw new Error(`ClickHouse at ${options.clickHouse.url} (CLICKHOUSE_URL) could not be prepared: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      }
      app.decorate('telemetry', store);
      app.decorate<LogStore>('logStore', store.logs);
      app.addHook('onClose', async () => store.close());
      return;
    }
    const store = new SqlTelemetryStore({
      database: sqlTelemetryDatabase(app),
      clock: app.clock,
      logs: sqlLogStore(app.database),
      maxRowsPerTransaction: options.maxRowsPerTransaction,
      writerThread: app.database.dialect === 'sqlite' ? options.writerThread : undefined,
    });
    app.decorate<TelemetryStore>('telemetry', store);
    app.decorate<LogStore>('logStore', store.logs);
    // Runs before the database closes (hooks run last-registered first): queued batches are stored.
    app.addHook('onClose', async () => store.close());
  },
  { name: 'telemetry-store' },
);

import fp from 'fastify-plugin';
import { SqlTelemetryStore } from './sql-telemetry-store.js';
import type { TelemetryStore } from './telemetry-store.js';
import type { Database } from '@playstack/server-kit';
import type { TelemetryDatabase } from '../storage/storage-tables.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Where telemetry is written, read, pruned and measured. */
    telemetry: TelemetryStore;
  }
}

export interface TelemetryStorePluginOptions {
  /** Rows (occurrences and log records) committed together at most. */
  maxRowsPerTransaction: number;
}

/** Decorates `app.telemetry`: the SQL store over the service database. */
export const telemetryStorePlugin = fp<TelemetryStorePluginOptions>(
  async (fastify, options) => {
    const app = fastify;
    const store: TelemetryStore = new SqlTelemetryStore({
      // The service database's tables include the telemetry tables (its migrations create them).
      database: app.database as Database<TelemetryDatabase>,
      clock: app.clock,
      logs: app.logStore,
      maxRowsPerTransaction: options.maxRowsPerTransaction,
    });
    app.decorate('telemetry', store);
    // Runs before the database closes (hooks run last-registered first): queued batches are stored.
    app.addHook('onClose', async () => store.idle());
  },
  { name: 'telemetry-store', dependencies: ['log-store'] },
);

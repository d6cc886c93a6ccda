import fp from 'fastify-plugin';
import { SqlTelemetryStore } from './sql-telemetry-store.js';
import type { TelemetryStore } from './telemetry-store.js';
import { telemetryDatabase } from '../storage/telemetry-database.js';

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
  async (app, options) => {
    const store: TelemetryStore = new SqlTelemetryStore({
      database: telemetryDatabase(app),
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

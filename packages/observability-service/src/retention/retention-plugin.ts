import fp from 'fastify-plugin';
import type { ObservabilityApp } from '../database.js';
import { RetentionPolicy } from './retention-policy.js';
import { RetentionPruner } from './retention-pruner.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The retention in force (cached) and the background pruner. */
    retention: { policy: RetentionPolicy; pruner: RetentionPruner };
  }
}

export interface RetentionPluginOptions {
  /** `RETENTION_DAYS`: the retention while no admin has set one. */
  defaultDays: number;
  pruneIntervalMs: number;
  pruneBatchRows: number;
}

/** Decorates `app.retention` and prunes old telemetry in the background while the app runs. */
export const retentionPlugin = fp<RetentionPluginOptions>(
  async (app: ObservabilityApp, options) => {
    const policy = new RetentionPolicy(app.database.db, options.defaultDays);
    await policy.refresh();
    const pruner = new RetentionPruner({
      store: app.telemetry,
      clock: app.clock,
      policy,
      logger: app.log,
      batchRows: options.pruneBatchRows,
      intervalMs: options.pruneIntervalMs,
    });
    app.decorate('retention', { policy, pruner });
    app.addHook('onReady', async () => pruner.start());
    app.addHook('onClose', async () => pruner.stop());
  },
  { name: 'retention', dependencies: ['telemetry-store'] },
);

import fp from 'fastify-plugin';
import type { MaintenanceResult as CompactionResult } from './telemetry-store.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Keeps the rollup tiers in step with ingestion; `runOnce()` folds in everything stored so far. */
    tierCompactor: { runOnce(): Promise<CompactionResult> };
  }
}

export interface TierCompactorOptions {
  intervalMs: number;
}

/**
 * Runs the tier compactor every `intervalMs` (the retention pruner drops tier buckets past
 * retention with the rest of the old data). Queries stay exact while it lags; it only decides
 * how much they can read from the tiers.
 */
export const tierCompactorPlugin = fp<TierCompactorOptions>(
  async (app, options) => {
    let running: Promise<CompactionResult> | undefined;
    const runOnce = (): Promise<CompactionResult> => {
      running ??= app.telemetry.maintain().finally(() => {
        running = undefined;
      });
      return running;
    };
    const tick = () => {
      runOnce().catch((error: unknown) => app.log.warn({ err: error }, 'rollup tier compaction failed; queries read the per-minute rollups meanwhile'));
    };
    const timer = setInterval(tick, options.intervalMs);
    timer.unref();
    app.addHook('onClose', async () => {
      clearInterval(timer);
      await running?.catch(() => undefined);
    });
    app.decorate('tierCompactor', { runOnce });
  },
  { name: 'tier-compactor', dependencies: ['telemetry-store'] },
);

import fp from 'fastify-plugin';
import type { App } from '@playstack/server-kit';
import { apdexThresholdsFrom } from '../service-settings/service-settings.js';
import { AlertEvaluator } from './alert-evaluator.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The alerts feature: `evaluator.runOnce()` evaluates the minutes due now (tests drive it with the clock). */
    alerts: { evaluator: AlertEvaluator };
  }
}

export interface AlertsPluginOptions {
  evaluationIntervalMs: number;
  evaluationDelayMs: number;
  maxCatchUpMinutes: number;
  apdexThresholdDefaultMs: number;
  publicUrl: string | undefined;
}

/**
 * How long the evaluation lease lasts unless renewed (each run renews it): long enough to outlast a
 * slow evaluation, short enough that another instance takes over within two minutes of a crash.
 */
export const evaluationLeaseMs = 90_000;

/** Decorates `app.alerts` and evaluates the rules in the background while the app runs. */
export const alertsPlugin = fp<AlertsPluginOptions>(
  async (fastify, options) => {
    const app = fastify as unknown as App;
    const evaluator = new AlertEvaluator({
      database: app.database,
      clock: app.clock,
      logger: app.log,
      apdexThresholds: apdexThresholdsFrom(app.database.db, options.apdexThresholdDefaultMs),
      delayMs: options.evaluationDelayMs,
      leaseMs: evaluationLeaseMs,
      maxCatchUpMinutes: options.maxCatchUpMinutes,
      publicUrl: options.publicUrl,
    });
    app.decorate('alerts', { evaluator });
    let timer: NodeJS.Timeout | undefined;
    app.addHook('onReady', async () => {
      timer = setInterval(() => {
        evaluator.runOnce().catch((error: unknown) => app.log.warn({ err: error }, 'alert evaluation failed; the minutes are evaluated at the next attempt'));
      }, options.evaluationIntervalMs);
      timer.unref();
    });
    app.addHook('onClose', async () => {
      clearInterval(timer);
      await evaluator.release().catch((error: unknown) => app.log.warn({ err: error }, 'could not give up the alert evaluation lease; another instance takes it when it expires'));
    });
  },
  { name: 'alerts' },
);

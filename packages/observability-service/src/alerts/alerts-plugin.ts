import fp from 'fastify-plugin';
import { createMailer } from '@playstack/server-kit';
import { apdexThresholdsFrom } from '../service-settings/service-settings.js';
import { AlertEvaluator } from './alert-evaluator.js';
import { AlertNotifier } from './alert-notifier.js';
import { ChannelSealer } from './channel-secrets.js';
import { readRulesFile } from './alert-rules-file.js';
import { replaceFileRules } from './alert-store.js';
import { sqlAlertReads, type AlertReads } from '../telemetry/alert-reads.js';
import { ClickHouseTelemetryStore } from '../telemetry/clickhouse/clickhouse-telemetry-store.js';
import { clickHouseAlertReads } from '../telemetry/clickhouse/clickhouse-alert-reads.js';
import { sqlTelemetryDatabase } from '../telemetry/sql-telemetry-database.js';
import type { ObservabilityApp } from '../database.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The alerts feature: `evaluator.runOnce()` evaluates the minutes due now (tests drive it with the clock). */
    alerts: { evaluator: AlertEvaluator; notifier: AlertNotifier; sealer: ChannelSealer; reads: AlertReads };
  }
}

export interface AlertsPluginOptions {
  evaluationIntervalMs: number;
  evaluationDelayMs: number;
  maxCatchUpMinutes: number;
  apdexThresholdDefaultMs: number;
  publicUrl: string | undefined;
  /** The service secrets (current first): channel configurations are sealed under a key derived from them. */
  secrets: readonly Buffer[];
  /** Email channels send through this SMTP server (the log when unset), from this address. */
  smtpUrl: string | undefined;
  mailFrom: string;
  /** ALERT_RULES_FILE: its rules replace the stored file rules at start (a file with problems stops the start, listing them all). */
  rulesFile: string | undefined;
}

/**
 * How long the evaluation lease lasts unless renewed (each run renews it): long enough to outlast a
 * slow evaluation, short enough that another instance takes over within two minutes of a crash.
 */
export const evaluationLeaseMs = 90_000;

/** Decorates `app.alerts` and evaluates the rules in the background while the app runs. */
export const alertsPlugin = fp<AlertsPluginOptions>(
  async (app: ObservabilityApp, options) => {
    const database = app.database;
    if (options.rulesFile !== undefined) await replaceFileRules(database.db, readRulesFile(options.rulesFile), app.clock.now());
    const sealer = new ChannelSealer(options.secrets);
    const mailer = createMailer({ smtpUrl: options.smtpUrl, from: options.mailFrom, logger: app.log });
    const notifier = new AlertNotifier({ database, clock: app.clock, sealer, mailer, logger: app.log });
    // The telemetry is read where the store keeps it; rules, states, events and the lease stay in the service database.
    const reads = app.telemetry instanceof ClickHouseTelemetryStore ? clickHouseAlertReads(app.telemetry.clickHouse) : sqlAlertReads(sqlTelemetryDatabase(app).db);
    const evaluator = new AlertEvaluator({
      database,
      reads,
      clock: app.clock,
      logger: app.log,
      apdexThresholds: apdexThresholdsFrom(database.db, options.apdexThresholdDefaultMs),
      delayMs: options.evaluationDelayMs,
      leaseMs: evaluationLeaseMs,
      maxCatchUpMinutes: options.maxCatchUpMinutes,
      publicUrl: options.publicUrl,
      onTransition: (trx, transition) => notifier.enqueue(trx, transition),
    });
    app.decorate('alerts', { evaluator, notifier, sealer, reads });
    let timer: NodeJS.Timeout | undefined;
    app.addHook('onReady', async () => {
      timer = setInterval(() => {
        evaluator
          .runOnce()
          .catch((error: unknown) => app.log.warn({ err: error }, 'alert evaluation failed; the minutes are evaluated at the next attempt'))
          .then(() => notifier.runOnce())
          .catch((error: unknown) => app.log.warn({ err: error }, 'sending alert notifications failed; they are retried at the next attempt'));
      }, options.evaluationIntervalMs);
      timer.unref();
    });
    app.addHook('onClose', async () => {
      clearInterval(timer);
      await mailer.close();
      await evaluator.release().catch((error: unknown) => app.log.warn({ err: error }, 'could not give up the alert evaluation lease; another instance takes it when it expires'));
    });
  },
  { name: 'alerts', dependencies: ['telemetry-store'] },
);

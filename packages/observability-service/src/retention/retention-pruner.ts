import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '@playstack/server-kit';
import type { TelemetryStore } from '../telemetry/index.js';
import { dayMs } from '../time-units.js';
import type { RetentionPolicy } from './retention-policy.js';

export interface RetentionPrunerOptions {
  store: Pick<TelemetryStore, 'prune'>;
  clock: Clock;
  policy: RetentionPolicy;
  logger: FastifyBaseLogger;
  /** Raw rows deleted per statement (each its own short transaction). */
  batchRows: number;
  intervalMs: number;
}

/** What one pruning run removed. */
export interface PruneResult {
  cutoff: number;
  occurrences: number;
  rollupRows: number;
  logRecords: number;
}

/**
 * Has the telemetry store delete what is older than the retention, in the background; the store
 * works in small steps (telemetry/sql-prune.ts), so ingestion keeps going while a backlog is pruned.
 */
export class RetentionPruner {
  readonly #options: RetentionPrunerOptions;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<PruneResult> | undefined;
  #stopped = false;

  constructor(options: RetentionPrunerOptions) {
    this.#options = options;
  }

  /** Prunes now and then every interval. */
  start(): void {
    const run = () => {
      this.pruneOnce().catch((error: unknown) => this.#options.logger.warn({ err: error }, 'retention pruning failed; retrying next interval'));
    };
    this.#timer = setInterval(run, this.#options.intervalMs);
    this.#timer.unref();
    setImmediate(run);
  }

  /** Stops the timer and waits for a run in progress (it stops after its current batch). */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    await this.#running?.catch(() => undefined);
  }

  /** One full pruning pass; a pass already running is joined rather than doubled. */
  pruneOnce(): Promise<PruneResult> {
    this.#running ??= this.#prune().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #prune(): Promise<PruneResult> {
    const { store, clock, policy, batchRows } = this.#options;
    const days = await policy.refresh();
    const cutoff = clock.now() - days * dayMs;
    const result: PruneResult = { cutoff, ...(await store.prune(cutoff, batchRows, () => this.#stopped)) };
    if (result.occurrences > 0 || result.rollupRows > 0 || result.logRecords > 0) {
      this.#options.logger.info({ ...result, retentionDays: days }, 'pruned data older than the retention');
    }
    return result;
  }
}

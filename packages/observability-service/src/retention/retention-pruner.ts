import type { FastifyBaseLogger } from 'fastify';
import type { Clock, Database } from '@playstack/server-kit';
import { pruneIngestionCounters } from '../health/ingestion-counters.js';
import { pruneTiers } from '../query/tier-compactor.js';
import { pruneErrorGroups } from '../errors/error-group-retention.js';
import type { IngestionTables } from '../storage/storage-tables.js';
import type { LogStore } from '../logs/index.js';
import { dayMs } from '../time-units.js';
import type { RetentionPolicy } from './retention-policy.js';

const rollupTables = ['operation_rollups', 'tenant_rollups', 'statement_rollups', 'dependency_rollups'] as const;

export interface RetentionPrunerOptions {
  database: Database<IngestionTables>;
  clock: Clock;
  policy: RetentionPolicy;
  logs: LogStore;
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

/** Lets queued work (ingestion's transactions) run between two deletes. */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Deletes raw occurrences, log records and rollup rows older than the retention, in the background, in small
 * batches: each delete is its own short statement and the event loop turns between them, so
 * ingestion keeps committing while a large backlog is pruned.
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
    const { database, clock, policy, batchRows } = this.#options;
    const { db } = database;
    const days = await policy.refresh();
    const cutoff = clock.now() - days * dayMs;
    const result: PruneResult = { cutoff, occurrences: 0, rollupRows: 0, logRecords: 0 };
    while (!this.#stopped) {
      const deleted = await db
        .deleteFrom('occurrences')
        .where('id', 'in', (eb) => eb.selectFrom('occurrences').select('id').where('started_at', '<', cutoff).orderBy('started_at').limit(batchRows))
        .executeTakeFirst();
      const count = Number(deleted.numDeletedRows);
      result.occurrences += count;
      if (count < batchRows) break;
      await yieldToEventLoop();
    }
    for (const table of rollupTables) {
      // One minute per delete: a minute's rows are bounded by the key cardinality, not by traffic.
      while (!this.#stopped) {
        const oldest = await db.selectFrom(table).select((eb) => eb.fn.min('minute').as('minute')).where('minute', '<', cutoff).executeTakeFirst();
        if (oldest?.minute === null || oldest?.minute === undefined) break;
        const deleted = await db.deleteFrom(table).where('minute', '=', Number(oldest.minute)).executeTakeFirst();
        result.rollupRows += Number(deleted.numDeletedRows);
        await yieldToEventLoop();
      }
    }
    if (!this.#stopped) result.logRecords = await this.#options.logs.prune(cutoff, batchRows, () => this.#stopped);
    if (!this.#stopped) await pruneTiers(database, cutoff);
    if (!this.#stopped) result.rollupRows += await pruneErrorGroups(database, cutoff);
    if (!this.#stopped) await pruneIngestionCounters(db, cutoff);
    if (result.occurrences > 0 || result.rollupRows > 0 || result.logRecords > 0) {
      this.#options.logger.info({ ...result, retentionDays: days }, 'pruned data older than the retention');
    }
    return result;
  }
}

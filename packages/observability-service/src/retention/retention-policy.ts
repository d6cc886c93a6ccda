import type { ObservabilityDb } from '../database.js';
import { storedRetentionDays, storeRetentionDays } from './retention-store.js';

/** Bounds of the retention an admin may set, in days. */
export const minRetentionDays = 1;
export const maxRetentionDays = 3650;

/**
 * The retention in force: what an admin set, else `RETENTION_DAYS`. Cached so ingestion can read
 * it per envelope; the pruner refreshes it on every run, so an admin's change applies within one
 * pruning interval.
 */
export class RetentionPolicy {
  readonly #db: ObservabilityDb;
  readonly #fallbackDays: number;
  #days: number;

  constructor(db: ObservabilityDb, fallbackDays: number) {
    this.#db = db;
    this.#fallbackDays = fallbackDays;
    this.#days = fallbackDays;
  }

  /** Days of data kept. */
  get days(): number {
    return this.#days;
  }

  /** Reads the current setting: what an admin set, or `RETENTION_DAYS` while nobody has. */
  async refresh(): Promise<number> {
    const days = await storedRetentionDays(this.#db);
    this.#days = days !== undefined && Number.isInteger(days) && days >= minRetentionDays ? days : this.#fallbackDays;
    return this.#days;
  }

  /**
   * Stores the retention an admin chose (within the bounds above) and applies it here at once;
   * other instances pick it up at their next prune.
   */
  async set(days: number, now: number): Promise<void> {
    await storeRetentionDays(this.#db, days, now);
    await this.refresh();
  }
}

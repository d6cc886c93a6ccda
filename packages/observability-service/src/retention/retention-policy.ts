import type { Kysely } from 'kysely';
import { getRetentionDays } from '../admin/retention-store.js';

/**
 * The retention in force: what an admin set, else `RETENTION_DAYS`. Cached so ingestion can read
 * it per envelope; the pruner refreshes it on every run, so an admin's change applies within one
 * pruning interval.
 */
export class RetentionPolicy {
  readonly #db: Kysely<any>;
  readonly #fallbackDays: number;
  #days: number;

  constructor(db: Kysely<any>, fallbackDays: number) {
    this.#db = db;
    this.#fallbackDays = fallbackDays;
    this.#days = fallbackDays;
  }

  /** Days of data kept. */
  get days(): number {
    return this.#days;
  }

  /** Reads the current setting. */
  async refresh(): Promise<number> {
    this.#days = await getRetentionDays(this.#db, this.#fallbackDays);
    return this.#days;
  }
}

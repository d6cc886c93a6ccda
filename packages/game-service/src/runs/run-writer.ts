import type { Kysely, Transaction } from 'kysely';
import type { GameDatabase } from '../database.js';

// A write spans tables of several features (runs, leaderboard entries): the writer is over the
// whole database (`DB`, the game's by default), and knows none of its tables.

/** Where submissions write: every `work` runs inside a transaction committed before it resolves. */
export interface RunWriter<DB = GameDatabase> {
  write<T>(work: (trx: Transaction<DB>) => Promise<T>): Promise<T>;
  /**
   * One statement that needs no transaction of its own (a follow-up write such as storing a
   * response); it may share a transaction with other writes. Resolves once durable.
   */
  writeStatement<T>(statement: (db: Kysely<DB>) => Promise<T>): Promise<T>;
  /** Resolves once every write already asked for has committed or failed. */
  drain(): Promise<void>;
}

/** One transaction per write; PostgreSQL runs them side by side on its pool. */
export class TransactionPerWrite<DB = GameDatabase> implements RunWriter<DB> {
  readonly #db: Kysely<DB>;
  readonly #pending = new Set<Promise<unknown>>();

  constructor(db: Kysely<DB>) {
    this.#db = db;
  }

  write<T>(work: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    return this.#track(this.#db.transaction().execute(work));
  }

  writeStatement<T>(statement: (db: Kysely<DB>) => Promise<T>): Promise<T> {
    return this.#track(statement(this.#db));
  }

  async drain(): Promise<void> {
    await Promise.all(this.#pending);
  }

  #track<T>(done: Promise<T>): Promise<T> {
    const tracked = done.then(
      () => undefined,
      () => undefined,
    );
    this.#pending.add(tracked);
    void tracked.finally(() => this.#pending.delete(tracked));
    return done;
  }
}

interface QueuedWrite<DB> {
  work(trx: Transaction<DB>): Promise<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/**
 * Group commit for a single-writer database (SQLite): writes that arrive while a transaction is
 * committing wait and then share the next transaction, so one commit (one WAL append) carries
 * many submissions. Writes are isolated from each other's failures: when one fails, the shared
 * transaction is rolled back and each write of the batch runs again in a transaction of its
 * own, so only the failing one fails. A failed commit rejects its writes, so no write is ever
 * reported done without being durable.
 */
export class GroupCommitWriter<DB = GameDatabase> implements RunWriter<DB> {
  readonly #db: Kysely<DB>;
  readonly #maxBatch: number;
  #queue: Array<QueuedWrite<DB>> = [];
  #running: Promise<void> | undefined;

  constructor(db: Kysely<DB>, maxBatch: number) {
    this.#db = db;
    this.#maxBatch = maxBatch;
  }

  write<T>(work: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      // Deferred to the next turn so writes arriving in the same burst share the first commit.
      this.#running ??= new Promise<void>((started) => setImmediate(started)).then(() => this.#drainQueue());
    });
  }

  writeStatement<T>(statement: (db: Kysely<DB>) => Promise<T>): Promise<T> {
    return this.write(statement);
  }

  async drain(): Promise<void> {
    while (this.#running) await this.#running;
  }

  async #drainQueue(): Promise<void> {
    try {
      while (this.#queue.length > 0) await this.#commitBatch(this.#queue.splice(0, this.#maxBatch));
    } finally {
      this.#running = undefined;
    }
  }

  async #commitBatch(batch: Array<QueuedWrite<DB>>): Promise<void> {
    if (batch.length === 1) return this.#commitAlone(batch[0]!);
    let values: unknown[];
    try {
      values = await this.#db.transaction().execute(async (trx) => {
        const results: unknown[] = [];
        for (const item of batch) results.push(await item.work(trx));
        return results;
      });
    } catch {
      // Which write failed, and whether the commit itself did, is found out one write at a time.
      for (const item of batch) await this.#commitAlone(item);
      return;
    }
    batch.forEach((item, i) => item.resolve(values[i]));
  }

  async #commitAlone(item: QueuedWrite<DB>): Promise<void> {
    try {
      item.resolve(await this.#db.transaction().execute((trx) => item.work(trx)));
    } catch (error) {
      item.reject(error);
    }
  }
}

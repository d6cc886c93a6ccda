import { sql, type Kysely, type Transaction } from 'kysely';

// `any` database type: a write spans tables of several features (runs, leaderboard entries),
// each of which types its own queries.

/** Where submissions write: every `work` runs inside a transaction committed before it resolves. */
export interface RunWriter {
  write<T>(work: (trx: Transaction<any>) => Promise<T>): Promise<T>;
  /** Resolves once every write already asked for has committed or failed. */
  drain(): Promise<void>;
}

/** One transaction per write; PostgreSQL runs them side by side on its pool. */
export class TransactionPerWrite implements RunWriter {
  readonly #db: Kysely<any>;
  readonly #pending = new Set<Promise<unknown>>();

  constructor(db: Kysely<any>) {
    this.#db = db;
  }

  write<T>(work: (trx: Transaction<any>) => Promise<T>): Promise<T> {
    const done = this.#db.transaction().execute(work);
    const tracked = done.catch(() => undefined).finally(() => this.#pending.delete(tracked));
    this.#pending.add(tracked);
    return done;
  }

  async drain(): Promise<void> {
    await Promise.all(this.#pending);
  }
}

interface QueuedWrite {
  work(trx: Transaction<any>): Promise<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

type WriteOutcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Group commit for a single-writer database (SQLite): writes that arrive while a transaction is
 * committing wait and then share the next transaction, so one commit (one WAL append) carries
 * many submissions. Each write runs in its own savepoint: a write that fails is rolled back
 * alone and rejects alone, leaving the others in its batch to commit. A failed commit rejects
 * the whole batch, so no write is ever reported done without being durable.
 */
export class GroupCommitWriter implements RunWriter {
  readonly #db: Kysely<any>;
  readonly #maxBatch: number;
  #queue: QueuedWrite[] = [];
  #running: Promise<void> | undefined;

  constructor(db: Kysely<any>, maxBatch: number) {
    this.#db = db;
    this.#maxBatch = maxBatch;
  }

  write<T>(work: (trx: Transaction<any>) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      // Deferred to the next turn so writes arriving in the same burst share the first commit.
      this.#running ??= new Promise<void>((started) => setImmediate(started)).then(() => this.#drainQueue());
    });
  }

  async drain(): Promise<void> {
    while (this.#running) await this.#running;
  }

  async #drainQueue(): Promise<void> {
    try {
      while (this.#queue.length > 0) await this.#commit(this.#queue.splice(0, this.#maxBatch));
    } finally {
      this.#running = undefined;
    }
  }

  async #commit(batch: QueuedWrite[]): Promise<void> {
    const outcomes: WriteOutcome[] = [];
    try {
      const trx = await this.#db.startTransaction().execute();
      try {
        for (const item of batch) outcomes.push(await this.#inSavepoint(trx, item));
        await trx.commit().execute();
      } catch (error) {
        await trx.rollback().execute().catch(() => undefined);
        throw error;
      }
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    batch.forEach((item, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    });
  }

  async #inSavepoint(trx: Transaction<any>, item: QueuedWrite): Promise<WriteOutcome> {
    await sql`savepoint run_write`.execute(trx);
    try {
      const value = await item.work(trx);
      await sql`release savepoint run_write`.execute(trx);
      return { ok: true, value };
    } catch (error) {
      await sql`rollback to savepoint run_write`.execute(trx);
      await sql`release savepoint run_write`.execute(trx);
      return { ok: false, error };
    }
  }
}

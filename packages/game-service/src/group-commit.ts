import { CompiledQuery, type Kysely, type Transaction } from 'kysely';
import { captureContext, gatherBeforeCommit, runGathered, runInContext, runStatementsDirectly, type Dialect, type SqliteStatements, type TraceContext } from '@playstack/server-kit';
import type { Awaitable } from './awaitable.js';
import type { GameDatabase } from './database.js';

// A write spans tables of several features (a run and its leaderboard entries; a sign-in's player
// and session): the writer is over the whole database (`DB`, the game's by default), and knows
// none of its tables.

/** Where run submissions and sign-ins write: every `work` runs inside a transaction committed before it resolves. */
export interface CommitWriter<DB = GameDatabase> {
  /**
   * Runs `work` in a transaction and resolves with its value once that transaction has committed.
   * `lane`: writes with the same lane never run in two transactions at once (a player's id, so
   * two transactions never wait on each other's rows of one player).
   */
  write<T>(work: (trx: Transaction<DB>) => Awaitable<T>, lane?: string): Promise<T>;
  /** Resolves once every write already asked for has committed or failed. */
  drain(): Promise<void>;
}

interface QueuedWrite<DB> {
  work(trx: Transaction<DB>): Awaitable<unknown>;
  /** The trace context of the caller that queued it (undefined while tracing is off). */
  context: TraceContext | undefined;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * The statements that isolate one write of a shared transaction: a savepoint before it, released
 * after it, rolled back to when it fails. On PostgreSQL the release of one write and the
 * savepoint of the next go in one round trip (a simple query may hold several statements).
 */
interface SavepointStatements {
  readonly first: CompiledQuery;
  readonly between: readonly CompiledQuery[];
  readonly last: CompiledQuery;
  readonly rollback: CompiledQuery;
}

function savepointStatements(dialect: Dialect): SavepointStatements {
  const savepoint = CompiledQuery.raw('SAVEPOINT write');
  const release = CompiledQuery.raw('RELEASE SAVEPOINT write');
  return {
    first: savepoint,
    between: dialect === 'postgres' ? [CompiledQuery.raw('RELEASE SAVEPOINT write; SAVEPOINT write')] : [release, savepoint],
    last: release,
    rollback: CompiledQuery.raw('ROLLBACK TO SAVEPOINT write'),
  };
}

/** A write of a batch run without savepoints threw: the transaction is rolled back, the batch runs again isolated. */
class BatchWriteFailed extends Error {}

/** FNV-1a: spreads lane names over the lanes. */
function laneIndex(lane: string, lanes: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < lane.length; i++) hash = Math.imul(hash ^ lane.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % lanes;
}

/** One lane of the group commit: its queue and the batch it is committing. */
class CommitLane<DB> {
  queue: Array<QueuedWrite<DB>> = [];
  running: Promise<void> | undefined;
}

/**
 * Group commit: writes that arrive while a transaction is committing wait and then share the
 * next one, so one commit (one WAL append, one fsync) carries many submissions. A batch first runs
 * its writes one after the other with no savepoint (a round trip each saved on PostgreSQL, two
 * statements on SQLite). When one of them fails, that transaction is rolled back whole and the
 * batch runs again with each write under a savepoint of its own: only the failing write's
 * statements are rolled back and only it is rejected; the others of its transaction commit. Each write is resolved only after the
 * commit that made it durable; when the commit itself fails, the batch's writes run again one
 * transaction each, so none is reported done without being durable.
 *
 * Statements the writes defer to just before the commit (`deferToCommit`: their change
 * announcements on PostgreSQL) run once per transaction, not once per write.
 *
 * SQLite has one writer: one lane. PostgreSQL runs several lanes side by side on its pool; a
 * write's lane comes from its lane name, so one player's writes are never in two open
 * transactions at once (two transactions locking the same players in opposite orders would
 * deadlock).
 *
 * Traced (a sampled request's spans): each write's statements run in the trace context of the
 * caller that queued it, so they are that request's SQL spans whatever batch it shares; the
 * transaction's own statements (BEGIN, COMMIT, savepoints, those gathered for before the commit)
 * are those of the request whose write opened the batch, and a write of an unsampled request starts no spans.
 */
export class GroupCommitWriter<DB = GameDatabase> implements CommitWriter<DB> {
  readonly #db: Kysely<DB>;
  readonly #maxBatch: number;
  readonly #lanes: Array<CommitLane<DB>>;
  readonly #savepoints: SavepointStatements;
  readonly #statements: SqliteStatements | undefined;

  /** `statements`: SQLite's prepared statements, which the writes' precompiled queries then run on directly (`runStatementsDirectly`). */
  constructor(db: Kysely<DB>, options: { dialect: Dialect; maxBatch: number; lanes?: number; statements?: SqliteStatements | undefined }) {
    this.#db = db;
    this.#statements = options.statements;
    this.#maxBatch = options.maxBatch;
    this.#lanes = Array.from({ length: options.lanes ?? 1 }, () => new CommitLane<DB>());
    this.#savepoints = savepointStatements(options.dialect);
  }

  write<T>(work: (trx: Transaction<DB>) => Awaitable<T>, lane = ''): Promise<T> {
    const target = this.#lanes[this.#lanes.length === 1 ? 0 : laneIndex(lane, this.#lanes.length)]!;
    return new Promise<T>((resolve, reject) => {
      target.queue.push({ work, context: captureContext(), resolve: resolve as (value: unknown) => void, reject });
      // Deferred to the next turn so writes arriving in the same burst share the first commit.
      target.running ??= new Promise<void>((started) => setImmediate(started)).then(() => this.#drainLane(target));
    });
  }

  async drain(): Promise<void> {
    for (const lane of this.#lanes) while (lane.running) await lane.running;
  }

  async #drainLane(lane: CommitLane<DB>): Promise<void> {
    try {
      while (lane.queue.length > 0) await this.#commitBatch(lane.queue.splice(0, this.#maxBatch));
    } finally {
      lane.running = undefined;
    }
  }

  async #commitBatch(batch: Array<QueuedWrite<DB>>): Promise<void> {
    if (batch.length === 1) return this.#commitAlone(batch[0]!);
    let outcomes: Outcome[];
    try {
      outcomes = await this.#transaction(batch[0]!.context, (trx) => this.#runTogether(trx, batch));
    } catch (error) {
      // A write failed (its transaction rolled back: nothing of the batch was written), or the
      // commit did: the savepoint path decides write by write.
      if (!(error instanceof BatchWriteFailed)) return this.#commitEachAlone(batch);
      return this.#commitIsolated(batch);
    }
    this.#settle(batch, outcomes);
  }

  /**
   * The common case first: every write of the batch one after the other, no savepoints (on
   * PostgreSQL each is a round trip of its own). The first write that throws rolls the whole
   * transaction back, and the batch runs again under savepoints.
   */
  async #runTogether(trx: Transaction<DB>, batch: Array<QueuedWrite<DB>>): Promise<Outcome[]> {
    const outcomes: Outcome[] = [];
    for (const item of batch) {
      try {
        // Awaited only when a promise: a write that answered at once (SQLite's) costs no microtask.
        const value = runInContext(item.context, () => item.work(trx));
        outcomes.push({ ok: true, value: value instanceof Promise ? await value : value });
      } catch (error) {
        throw new BatchWriteFailed('a write of the batch failed', { cause: error });
      }
    }
    return outcomes;
  }

  async #commitIsolated(batch: Array<QueuedWrite<DB>>): Promise<void> {
    let outcomes: Outcome[];
    try {
      outcomes = await this.#transaction(batch[0]!.context, (trx) => this.#runIsolated(trx, batch));
    } catch {
      // The commit (or a rollback to a savepoint) failed: whatever the batch wrote is gone.
      return this.#commitEachAlone(batch);
    }
    this.#settle(batch, outcomes);
  }

  #settle(batch: Array<QueuedWrite<DB>>, outcomes: Outcome[]): void {
    batch.forEach((item, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    });
  }

  async #commitEachAlone(batch: Array<QueuedWrite<DB>>): Promise<void> {
    for (const item of batch) await this.#commitAlone(item);
  }

  async #runIsolated(trx: Transaction<DB>, batch: Array<QueuedWrite<DB>>): Promise<Outcome[]> {
    const { first, between, last, rollback } = this.#savepoints;
    // A failed write's gathered statements stay (announcements: one too many only makes a
    // listener read the rows again).
    const outcomes: Outcome[] = [];
    await trx.executeQuery(first);
    for (const [i, item] of batch.entries()) {
      if (i > 0) for (const statement of between) await trx.executeQuery(statement);
      try {
        const value = runInContext(item.context, () => item.work(trx));
        outcomes.push({ ok: true, value: value instanceof Promise ? await value : value });
      } catch (error) {
        await trx.executeQuery(rollback);
        outcomes.push({ ok: false, error });
      }
    }
    await trx.executeQuery(last);
    return outcomes;
  }

  async #commitAlone(item: QueuedWrite<DB>): Promise<void> {
    try {
      item.resolve(await this.#transaction(item.context, (trx) => item.work(trx)));
    } catch (error) {
      item.reject(error);
    }
  }

  /**
   * A transaction opened in `context` (the trace context of the write that opened it): `work`
   * runs in it, then the statements its writes deferred to the commit (`deferToCommit`), then
   * the commit.
   */
  #transaction<T>(context: TraceContext | undefined, work: (trx: Transaction<DB>) => Awaitable<T>): Promise<T> {
    return runInContext(context, () =>
      this.#db.transaction().execute(async (trx) => {
        gatherBeforeCommit(trx);
        const release = this.#statements && runStatementsDirectly(trx, this.#statements);
        try {
          const value = await work(trx);
          await runGathered(trx);
          return value;
        } finally {
          release?.();
        }
      }),
    );
  }
}

import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '@playstack/server-kit';
import {
  countBefore,
  countEntries,
  entriesAfter,
  entriesBefore,
  EntryStatements,
  entriesOfPlayers,
  findEntry,
  type Entry,
  type EntryPosition,
} from './leaderboard-store.js';
import { isCurrentPeriod, periodBounds } from './periods.js';
import { KeyedMutex } from './keyed-mutex.js';
import { andThen, type Awaitable } from '../awaitable.js';
import { notHeld, type HeldItem, type NotHeld, type RankEngine, type RebuildOutcome, type Standing } from './rank-engine.js';
import { compareRankKeys, rankItemOf, rankKeyOf, sortScoreOf, sortSubscoreOf, type RankItem } from './rank-order.js';
import { rankedSetId, type RankedSet } from './ranked-board.js';
import type { GameDb } from '../database.js';

/** An entry with its 1-based position. */
export interface RankedEntry extends Entry {
  readonly rank: number;
}

/** A player's entry (if any) in a ranked set, the set's size and the entries around the player. */
export interface RankedStanding {
  readonly total: number;
  readonly entry: RankedEntry | undefined;
  /** Up to `radius` entries above, the player's own, up to `radius` below, in rank order. */
  readonly window: readonly RankedEntry[];
}

/** One held set's agreement between the engine and SQL, from `checkConsistency`. */
export interface SetConsistency {
  readonly setId: string;
  readonly engineTotal: number;
  readonly sqlTotal: number;
  /** 1-based rank of the first position where the two disagree, or undefined when they agree. */
  readonly firstDifferenceAt: number | undefined;
}

/** Rows per query while loading a set: large enough to be quick, small enough to let requests in between. */
const loadBatchSize = 20_000;
/** How long a shared engine keeps an ended period's set before Redis expires it by itself. */
const endedSetGraceMs = 86_400_000;
/** After another instance was found rebuilding a set, how long before this one offers to take over. */
const busyRetryMs = 1_000;
/** Most players whose missed engine writes are remembered one by one; past it their sets are rebuilt whole. */
const maxMissedPlayers = 100_000;
/** Rounds a replay of missed writes makes (a second apart) before waiting for the next recovery. */
const maxReplayRounds = 10;
/** Sets rebuilt at once after a loss (each reads its whole set from SQL). */
const rebuildConcurrency = 2;

/** Why a set was rebuilt from SQL: at boot, after the engine lost it, or after missed writes. */
export type RebuildReason = 'boot' | 'lost' | 'resync' | 'reorder';

export interface RankIndexOptions {
  db: GameDb;
  engine: RankEngine;
  clock: Clock;
  /** Where rebuild failures are reported (they are retried). */
  log?: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
  /** Told of every set rebuilt from SQL. */
  onRebuilt?: (reason: RebuildReason) => void;
}

interface HeldSet {
  readonly set: RankedSet;
  /** The first load of an in-process set: reads and writes wait for it. */
  loading: Promise<void> | undefined;
}

/** A player whose rows changed while the engine could not be written. */
interface MissedPlayer {
  readonly gameId: string;
  readonly playerId: string;
  readonly sets: Map<string, RankedSet>;
}

/** The rows a run's transaction left, and the `syncMark` taken before it wrote them. */
interface CommittedRows {
  rows: ReadonlyArray<Entry | undefined>;
  mark: number;
}

/** A sync that found every set in step. */
const nothingOutOfStep: ReadonlySet<string> = new Set();

/**
 * Keeps the rank engine in step with SQL and answers rank questions from whichever holds them.
 *
 * The engine holds the all-time set and the current period of each kind; a set is loaded from
 * SQL the first time it is needed (at boot for every board). Ended periods are dropped from the
 * engine and answered from SQL with indexed counts and keyset reads.
 *
 * Consistency: after a transaction commits, `syncPlayer` re-reads the player's committed rows and
 * writes exactly those positions to the engine. Syncs of one player run one at a time and each
 * reads after its own commit, so the last sync always leaves the engine equal to SQL, whatever
 * the interleaving of concurrent writers. A run's sync (`syncPlayerWith`) writes the rows its
 * transaction left instead, on the in-process engine, unless a sync read SQL since that
 * transaction began. Loads finish before any sync of their set applies.
 *
 * A shared engine (Redis) may fail or lose sets; SQL then answers, and the engine is brought back
 * in step before it answers again:
 * - unreachable: every read goes to SQL; writes it missed are remembered (player by player, up
 *   to `maxMissedPlayers`) and, once it answers again, replayed from SQL (or their sets rebuilt);
 *   until then those sets keep answering from SQL;
 * - a set lost (Redis restarted empty or from an older snapshot, noticed through the set's
 *   generation marker by the first read or write, or by the check when Redis answers again): SQL
 *   answers it while one instance rebuilds it under a lease; the others wait for it;
 * - a catch-up (`resynchronise`): every held set rebuilt, with writes made meanwhile replayed.
 */
export class RankIndex {
  readonly #db: GameDb;
  /** The after-commit read of a player's entries, compiled once. */
  readonly #statements: EntryStatements;
  readonly #engine: RankEngine;
  readonly #clock: Clock;
  readonly #log: RankIndexOptions['log'];
  readonly #onRebuilt: (reason: RebuildReason) => void;
  readonly #held = new Map<string, HeldSet>();
  readonly #playerTurns = new KeyedMutex();
  /** Syncs that read SQL so far (any player): a run's sync trusts its own rows only if none did since its transaction began. */
  #sqlSyncs = 0;
  #nextPeriodEndMs = Infinity;
  /** Rebuilds this instance runs, by set id. */
  readonly #rebuilds = new Map<string, Promise<RebuildOutcome>>();
  /** Players synced while their set was being rebuilt here, replayed once it is swapped in. */
  readonly #syncedDuringRebuild = new Map<string, Set<string>>();
  /** Sets another instance is rebuilding, with when to offer again. */
  readonly #rebuiltElsewhere = new Map<string, number>();
  #rebuildSlots = rebuildConcurrency;
  readonly #rebuildQueue: Array<() => void> = [];
  readonly #missed = new Map<string, MissedPlayer>();
  /** Sets whose engine copy misses writes: SQL answers them until they are replayed or rebuilt. */
  readonly #stale = new Map<string, RankedSet>();
  /** Sets whose missed writes were too many to remember one by one: rebuilt whole. */
  readonly #overflowed = new Set<string>();
  #replaying: Promise<void> | undefined;
  /** Why the engine may lack other instances' changes (their feed is down): SQL answers until a catch-up. */
  #outOfStep: string | undefined;
  /** Bumped by every `suspend`, so a catch-up that began before a later one does not end it. */
  #suspensions = 0;

  constructor(options: RankIndexOptions) {
    this.#db = options.db;
    this.#statements = new EntryStatements(options.db, undefined, true);
    this.#engine = options.engine;
    this.#clock = options.clock;
    this.#log = options.log;
    this.#onRebuilt = options.onRebuilt ?? (() => undefined);
  }

  get engineKind(): RankEngine['kind'] {
    return this.#engine.kind;
  }

  /** Loads each set into the engine (the boot rebuild); sets of ended periods are skipped. */
  async load(sets: Iterable<RankedSet>): Promise<void> {
    for (const set of sets) {
      if (this.#engine.kind === 'in-process') await this.#track(set);
      else if (isCurrentPeriod(set, this.#clock.now())) {
        const id = rankedSetId(set);
        // Tracked already (a request needed it first): it was checked then; wait for that.
        if (this.#held.has(id)) {
          await this.#rebuilds.get(id)?.catch(() => undefined);
          continue;
        }
        this.#register(set, id);
        // A shared set that could not be rebuilt is answered from SQL and rebuilt when next
        // found missing (or when Redis answers again): the boot goes on.
        await this.#rebuild(set, 'boot').catch(() => undefined);
      }
    }
  }

  /**
   * Writes the player's committed rows in these sets to the engine (absent rows are removed).
   * Never throws for the engine: a write it misses is remembered and replayed once it answers.
   * Answers the ids of the sets the engine is not in step with for this player (SQL answers them).
   */
  syncPlayer(gameId: string, playerId: string, sets: readonly RankedSet[]): Awaitable<ReadonlySet<string>> {
    return this.#sync(gameId, playerId, sets, undefined);
  }

  /**
   * A mark to take inside a transaction, before its writes of a player's entries, for
   * {@link syncPlayerWith}: it tells whether any sync read SQL since.
   */
  syncMark(): number {
    return this.#sqlSyncs;
  }

  /**
   * `syncPlayer` for a write that knows the rows it committed (a run's score writes): `rows` are
   * the player's rows in `sets` as that transaction left them (undefined: none, or hidden). The
   * in-process engine takes them without reading SQL again when no sync read SQL since `mark`
   * (see {@link syncMark}); otherwise (a moderation, an erasure, another instance's change or a
   * rebuild may have changed the rows since), and for a shared engine (other instances write
   * the same player's rows in an order this one does not see), SQL is read as by `syncPlayer`.
   * The caller's writes of one player must publish in commit order (the group commit's lanes).
   * Answered at once, without a promise, when the in-process engine holds every set loaded and
   * the rows can be trusted (nearly every run).
   */
  syncPlayerWith(gameId: string, playerId: string, sets: readonly RankedSet[], rows: ReadonlyArray<Entry | undefined>, mark: number): Awaitable<ReadonlySet<string>> {
    return this.#sync(gameId, playerId, sets, { rows, mark });
  }

  #sync(gameId: string, playerId: string, sets: readonly RankedSet[], committed: CommittedRows | undefined): Awaitable<ReadonlySet<string>> {
    return this.#playerTurns.run(`${gameId}:${playerId}`, () => this.#syncAtOnce(gameId, playerId, sets, committed) ?? this.#syncWaiting(gameId, playerId, sets, committed));
  }

  /**
   * The sync without a promise: the in-process engine, every set held and loaded, and rows this
   * index may trust (no sync read SQL since they were written). Undefined, having done nothing,
   * otherwise.
   */
  #syncAtOnce(gameId: string, playerId: string, sets: readonly RankedSet[], committed: CommittedRows | undefined): ReadonlySet<string> | undefined {
    if (!committed || this.#engine.kind !== 'in-process' || committed.mark !== this.#sqlSyncs) return undefined;
    const ids: string[] = [];
    for (const set of sets) {
      const id = this.#heldNow(set);
      if (id === undefined) return undefined;
      ids.push(id);
    }
    ids.forEach((id, index) => {
      const set = sets[index]!;
      this.#syncedDuringRebuild.get(id)?.add(JSON.stringify([gameId, playerId]));
      const row = committed.rows[index];
      const written = row ? this.#engine.upsert(id, rankItemOf(set, row)) : this.#engine.remove(id, playerId);
      // The in-process engine writes at once and always holds its sets.
      if (written !== true) throw new Error('the in-process rank engine answered a write with a promise or false');
    });
    return nothingOutOfStep;
  }

  async #syncWaiting(gameId: string, playerId: string, sets: readonly RankedSet[], committed: CommittedRows | undefined): Promise<ReadonlySet<string>> {
    const held: Array<{ set: RankedSet; id: string }> = [];
    for (const set of sets) {
      const id = await this.#track(set);
      if (id !== undefined) held.push({ set, id });
    }
    const notInStep = new Set<string>();
    if (held.length === 0) return notInStep;
    if (!this.#engine.usable) {
      for (const { set, id } of held) {
        this.#missedWrite(gameId, playerId, set, id);
        notInStep.add(id);
      }
      return notInStep;
    }
    let rowOf: (set: RankedSet) => Entry | undefined;
    if (committed && this.#engine.kind === 'in-process' && committed.mark === this.#sqlSyncs) {
      rowOf = (set) => committed.rows[sets.indexOf(set)];
    } else {
      this.#sqlSyncs += 1;
      const rows = await this.#statements.entriesOfPlayer(this.#db, gameId, playerId, held.map((h) => h.set));
      rowOf = (set) => rows.find((r) => r.boardId === set.boardId && r.period === set.period);
    }
    for (const { set, id } of held) {
      this.#syncedDuringRebuild.get(id)?.add(JSON.stringify([gameId, playerId]));
      const row = rowOf(set);
      try {
        const inStep = row ? await this.#engine.upsert(id, rankItemOf(set, row)) : await this.#engine.remove(id, playerId);
        if (!inStep) {
          notInStep.add(id);
          this.#lost(set, id);
        }
      } catch {
        // The engine failed (RedisHealth took note): SQL answers this set until the write is replayed.
        this.#missedWrite(gameId, playerId, set, id);
        notInStep.add(id);
        continue;
      }
      // The period may have ended while this ran; forget what was just written to it.
      if (!this.#held.has(id)) await this.#dropQuietly(id);
    }
    return notInStep;
  }

  /** Forgets a set in the engine; a failure is no matter (the engine forgets it on its own, or answers notHeld). */
  async #dropQuietly(id: string): Promise<void> {
    try {
      await this.#engine.drop(id);
    } catch {
      // Nothing to do: see above.
    }
  }

  /** Removes a player from every set of a game the engine holds, after their rows were deleted. */
  async syncErasedPlayer(gameId: string, playerId: string): Promise<void> {
    await this.syncPlayer(gameId, playerId, this.#heldSetsOf(gameId));
  }

  /** Brings every held set of a game in step with SQL for one player (a change another instance made). */
  async syncChangedPlayer(gameId: string, playerId: string): Promise<void> {
    await this.syncPlayer(gameId, playerId, this.#heldSetsOf(gameId));
  }

  #heldSetsOf(gameId: string): RankedSet[] {
    return [...this.#held.values()].filter((h) => h.set.gameId === gameId).map((h) => h.set);
  }

  /**
   * Up to `count` entries ranked after a position (from the top without one), with their ranks:
   * from the engine when it can place the position, else from SQL.
   */
  entriesAfter(set: RankedSet, after: EntryPosition | undefined, count: number): Awaitable<RankedEntry[]> {
    return andThen(this.#answering(set), (id) => {
      if (id === undefined) return this.#entriesAfterFromSql(set, after, count);
      return this.#fromEngine(set, id, () => this.#engine.itemsAfter(id, after && rankKeyOf(set, after), count), (found) =>
        found ? this.#rankedEntries(set, found.items, found.firstRank) : this.#entriesAfterFromSql(set, after, count),
        () => this.#entriesAfterFromSql(set, after, count),
      );
    });
  }

  async #entriesAfterFromSql(set: RankedSet, after: EntryPosition | undefined, count: number): Promise<RankedEntry[]> {
    const rows = await entriesAfter(this.#db, set, after, count);
    const firstRank = rows.length > 0 ? (await countBefore(this.#db, set, rows[0]!)) + 1 : 0;
    return rows.map((entry, i) => ({ ...entry, rank: firstRank + i }));
  }

  /**
   * The visible entries of those of `playerIds` with one in the set (any order): from the engine
   * when it holds the set (at once, without a promise, in-process), else from SQL.
   */
  entriesOfPlayers(set: RankedSet, playerIds: readonly string[]): Awaitable<Entry[]> {
    const fromSql = () => entriesOfPlayers(this.#db, set, playerIds);
    return andThen(this.#answering(set), (id) =>
      id === undefined
        ? fromSql()
        : this.#fromEngine(set, id, () => this.#engine.itemsOf(id, playerIds), // Ranks in the whole set are not asked for: each caller ranks these among themselves.
        (items) => this.#rankedEntries(set, items, 0), fromSql),
    );
  }

  /** The player's 1-based rank, or undefined without an entry. */
  rankOfPlayer(set: RankedSet, playerId: string): Awaitable<number | undefined> {
    const fromSql = async () => {
      const entry = await findEntry(this.#db, set, playerId);
      return entry && (await countBefore(this.#db, set, entry)) + 1;
    };
    return andThen(this.#answering(set), (id) =>
      id === undefined ? fromSql() : this.#fromEngine(set, id, () => this.#engine.standing(id, playerId, 0), (found) => found.rank, fromSql),
    );
  }

  /**
   * The player's standing with up to `radius` entries either side (0: none). With the
   * in-process engine holding the set this is answered at once, without a promise.
   */
  standing(set: RankedSet, playerId: string, radius: number): Awaitable<RankedStanding> {
    return andThen(this.#answering(set), (id) =>
      id === undefined
        ? this.#standingFromSql(set, playerId, radius)
        : this.#fromEngine(set, id, () => this.#engine.standing(id, playerId, radius), (found) => this.#standingOf(set, playerId, found), () =>
            this.#standingFromSql(set, playerId, radius),
          ),
    );
  }

  /**
   * Asks the engine, answering from SQL when it does not hold the set (which starts its rebuild)
   * or fails. In-process answers come back at once, without a promise.
   */
  #fromEngine<F, R>(set: RankedSet, id: string, ask: () => Awaitable<F | NotHeld>, use: (found: F) => Awaitable<R>, fromSql: () => Promise<R>): Awaitable<R> {
    let asked: Awaitable<F | NotHeld>;
    try {
      asked = ask();
    } catch {
      return fromSql();
    }
    const answer = (found: F | NotHeld): Awaitable<R> => {
      if (found !== notHeld) {
        if (this.#rebuiltElsewhere.size > 0) this.#rebuiltElsewhere.delete(id);
        return use(found as F);
      }
      this.#lost(set, id);
      return fromSql();
    };
    if (!(asked instanceof Promise)) return answer(asked);
    // A failed engine call told RedisHealth already; SQL answers this one.
    return asked.then(answer, fromSql);
  }

  #standingOf(set: RankedSet, playerId: string, found: Standing): Awaitable<RankedStanding> {
    if (found.rank === undefined) return { total: found.total, entry: undefined, window: [] };
    return andThen(this.#rankedEntries(set, found.window, found.windowFirstRank), (window) => ({
      total: found.total,
      entry: window.find((e) => e.playerId === playerId),
      window,
    }));
  }

  /**
   * Consecutive engine items as entries ranked from `firstRank`. A shared set last written by a
   * version that kept no names lacks some; SQL has them (an entry erased since the engine
   * answered is left out, and the others keep their ranks).
   */
  #rankedEntries(set: RankedSet, items: readonly HeldItem[], firstRank: number): Awaitable<RankedEntry[]> {
    const unnamed: string[] = [];
    for (const item of items) if (item.displayName === undefined) unnamed.push(item.playerId);
    if (unnamed.length === 0) return items.map((item, i) => this.#entryOf(set, item, item.displayName!, firstRank + i));
    return entriesOfPlayers(this.#db, set, unnamed).then((rows) => {
      const names = new Map(rows.map((e) => [e.playerId, e.displayName]));
      const entries: RankedEntry[] = [];
      items.forEach((item, i) => {
        const displayName = item.displayName ?? names.get(item.playerId);
        if (displayName !== undefined) entries.push(this.#entryOf(set, item, displayName, firstRank + i));
      });
      return entries;
    });
  }

  #entryOf(set: RankedSet, item: HeldItem, displayName: string, rank: number): RankedEntry {
    return {
      playerId: item.playerId,
      displayName,
      score: sortScoreOf(set.order, item.sortScore),
      subscore: sortSubscoreOf(set, item.sortSubscore),
      achievedAt: item.achievedAt,
      rank,
    };
  }

  async #standingFromSql(set: RankedSet, playerId: string, radius: number): Promise<RankedStanding> {
    const [total, entry] = await Promise.all([countEntries(this.#db, set), findEntry(this.#db, set, playerId)]);
    if (!entry) return { total, entry: undefined, window: [] };
    return standingOfEntryInSql(this.#db, set, entry, total, radius);
  }

  /**
   * Compares every held set in the engine with SQL: order, scores, times and names. Meaningful
   * while no writes are in flight; operators and tests use it to prove the two agree. A set the
   * engine does not hold differs at rank 1.
   */
  async checkConsistency(): Promise<SetConsistency[]> {
    await this.#dropEnded(this.#clock.now());
    const report: SetConsistency[] = [];
    for (const [setId, held] of [...this.#held]) {
      if (held.loading) await held.loading;
      await this.#rebuilds.get(setId);
      const sqlItems = await this.#readSet(held.set);
      const found = await this.#engine.itemsFrom(setId, 1, sqlItems.length + 1);
      if (found === notHeld) {
        report.push({ setId, engineTotal: 0, sqlTotal: sqlItems.length, firstDifferenceAt: 1 });
        continue;
      }
      const length = Math.max(sqlItems.length, found.length);
      let firstDifferenceAt: number | undefined;
      for (let i = 0; i < length && firstDifferenceAt === undefined; i++) if (!sameItem(sqlItems[i], found[i])) firstDifferenceAt = i + 1;
      report.push({ setId, engineTotal: found.length, sqlTotal: sqlItems.length, firstDifferenceAt });
    }
    return report;
  }

  /**
   * What the index does in a reduced mode, for `/readyz` (undefined when the engine answers
   * everything): sets answered from SQL while Redis is out of use, being rebuilt here or
   * elsewhere, or waiting for missed writes to be replayed.
   */
  status(): string | undefined {
    const parts: string[] = [];
    if (this.#outOfStep !== undefined) parts.push(this.#outOfStep);
    if (!this.#engine.usable) parts.push(`the ${this.#engine.kind} rank engine is out of use: every leaderboard is answered from SQL`);
    const here = this.#rebuilds.size;
    if (here > 0) parts.push(`rebuilding ${here} leaderboard set${here === 1 ? '' : 's'} from SQL (answered from SQL meanwhile)`);
    // Seen busy within the last retry interval (a set nobody reads is not looked at again).
    const now = Date.now();
    const elsewhere = [...this.#rebuiltElsewhere].filter(([id, retryAt]) => retryAt > now && !this.#rebuilds.has(id)).length;
    if (elsewhere > 0) parts.push(`${elsewhere} leaderboard set${elsewhere === 1 ? ' is' : 's are'} being rebuilt by another instance (answered from SQL meanwhile)`);
    if (this.#stale.size > 0) parts.push(`${this.#stale.size} leaderboard set${this.#stale.size === 1 ? '' : 's'} missed writes (answered from SQL until they are replayed)`);
    return parts.length > 0 ? parts.join('; ') : undefined;
  }

  /**
   * After the engine was out of use (or restarted): starts rebuilding every held set it lost and
   * replays the writes it missed. Sets stay answered from SQL until each is back in step.
   */
  async resynchronise(): Promise<void> {
    const sets = [...this.#held.values()].filter((h) => !h.loading).map((h) => h.set);
    const ids = sets.map((set) => rankedSetId(set));
    let holds: boolean[];
    try {
      holds = await this.#engine.holds(ids);
    } catch {
      return; // Out of use again: the next recovery tries again.
    }
    sets.forEach((set, i) => {
      if (holds[i]) this.#rebuiltElsewhere.delete(ids[i]!);
    });
    const rebuilds = sets.filter((_, i) => !holds[i]).map((set) => this.#rebuild(set, 'lost'));
    await Promise.all([...rebuilds.map((r) => r.catch(() => undefined)), this.#replayMissed()]);
  }

  /**
   * The engine may be missing other instances' changes from now on (the feed carrying them is
   * disconnected): every read is answered from SQL until `catchUp` has run.
   */
  suspend(reason: string): void {
    this.#outOfStep = reason;
    this.#suspensions += 1;
  }

  /**
   * Rebuilds every held set from SQL (a catch-up after changes may have been missed: another
   * instance's notifications lost with a dropped connection), then answers from the engine again
   * unless it was suspended once more meanwhile. Writes made during each rebuild are replayed
   * after it.
   */
  async catchUp(): Promise<void> {
    const suspensions = this.#suspensions;
    const sets = [...this.#held.values()].map((h) => h.set);
    const outcomes = await Promise.allSettled(sets.map((set) => this.#rebuild(set, 'resync')));
    if (outcomes.some((outcome) => outcome.status === 'rejected')) {
      this.#log?.error('rank engine: catching up with the other instances failed; SQL answers until the next catch-up');
      return;
    }
    if (this.#suspensions === suspensions) this.#outOfStep = undefined;
  }

  /**
   * The set's id when the engine should answer for it, else undefined (SQL answers: a past
   * period, an engine out of use, a set missing writes). Answered at once, without a promise,
   * when the set is tracked and loaded and no period has ended since the last look.
   */
  #answering(set: RankedSet): Awaitable<string | undefined> {
    if (!this.#engine.usable || this.#outOfStep !== undefined) return undefined;
    return andThen(this.#track(set), (id) => (id !== undefined && this.#stale.size > 0 && this.#stale.has(id) ? undefined : id));
  }

  /**
   * The set's id in the engine when the engine keeps it (loading it first if needed), else
   * undefined (a past period: SQL answers). Answered at once, without a promise, when the set is
   * held and loaded and no period has ended since the last look: a set is held only once its
   * period has started, and none has ended before `#nextPeriodEndMs`, so it is still current.
   * (A clock set back before a held period's start still finds it held; the engine and SQL agree
   * on it, as `syncPlayer` keeps every held set in step.)
   */
  #track(set: RankedSet): Awaitable<string | undefined> {
    return this.#heldNow(set) ?? this.#trackOnceLoaded(set, rankedSetId(set), this.#clock.now());
  }

  /** The set's id when `#track` can answer it at once (held, loaded, same ordering, no period ended since the last look); else undefined. */
  #heldNow(set: RankedSet): string | undefined {
    if (this.#clock.now() >= this.#nextPeriodEndMs) return undefined;
    const id = rankedSetId(set);
    const held = this.#held.get(id);
    return held && !held.loading && sameOrdering(held.set, set) ? id : undefined;
  }

  async #trackOnceLoaded(set: RankedSet, id: string, now: number): Promise<string | undefined> {
    if (now >= this.#nextPeriodEndMs) await this.#dropEnded(now);
    if (!isCurrentPeriod(set, now)) return undefined;
    let held = this.#held.get(id);
    const reordered = held !== undefined && !sameOrdering(held.set, set);
    if (reordered) held = await this.#reorder(set, id);
    if (!held) {
      held = this.#register(set, id);
      if (this.#engine.kind === 'in-process') {
        // Nothing else holds the set: reads and writes wait for its first load.
        const created = held;
        created.loading = this.#rebuild(set, reordered ? 'reorder' : 'boot').then(
          () => {
            created.loading = undefined;
          },
          (error: unknown) => {
            this.#held.delete(id);
            throw error;
          },
        );
      } else {
        // Another instance may hold it whole already; if not, SQL answers until it is rebuilt.
        void this.#rebuild(set, reordered ? 'reorder' : 'lost').catch(() => undefined);
      }
    }
    if (held.loading) await held.loading;
    return id;
  }

  /**
   * The manifest changed the board's order or its subscore's since the set was held: what the
   * engine holds is sorted the old way. Forget it once its load or rebuild is done, so the caller
   * holds it again, rebuilt from SQL in the new order (meanwhile SQL answers, on Redis; reads wait,
   * in process). Undefined when this call forgot it; the held set when another call got there first.
   */
  async #reorder(set: RankedSet, id: string): Promise<HeldSet | undefined> {
    const held = this.#held.get(id);
    if (held?.loading) await held.loading.catch(() => undefined);
    await this.#rebuilds.get(id)?.catch(() => undefined);
    const current = this.#held.get(id);
    if (current && sameOrdering(current.set, set)) return current;
    if (current) {
      this.#held.delete(id);
      this.#stale.delete(id);
      this.#log?.info({ setId: id, order: set.order, subscoreOrder: set.subscoreOrder ?? null }, 'rank engine: the board\'s order changed in the manifest; rebuilding the set from SQL');
      await this.#dropQuietly(id);
    }
    return this.#held.get(id);
  }

  #register(set: RankedSet, id: string): HeldSet {
    const existing = this.#held.get(id);
    if (existing) return existing;
    const created: HeldSet = { set, loading: undefined };
    this.#held.set(id, created);
    this.#nextPeriodEndMs = Math.min(this.#nextPeriodEndMs, periodBounds(set)?.endMs ?? Infinity);
    return created;
  }

  /** The engine does not hold a set: rebuild it here, unless another instance is at it. */
  #lost(set: RankedSet, id: string): void {
    if (this.#rebuilds.has(id)) return;
    const retryAt = this.#rebuiltElsewhere.get(id);
    if (retryAt !== undefined && retryAt > Date.now()) return;
    void this.#rebuild(set, 'lost').catch(() => undefined);
  }

  /**
   * Rebuilds a set from SQL (one rebuild per set at a time here, `rebuildConcurrency` sets at
   * once), then replays the syncs that ran meanwhile: an in-process swap replaces what they wrote.
   */
  #rebuild(set: RankedSet, reason: RebuildReason): Promise<RebuildOutcome> {
    const id = rankedSetId(set);
    const running = this.#rebuilds.get(id);
    if (running) return running;
    const synced = new Set<string>();
    const rebuild = (async () => {
      await this.#rebuildSlot();
      try {
        this.#syncedDuringRebuild.set(id, synced);
        const outcome = await this.#engine.replace(id, this.#batchesOf(set), { ttlMs: this.#ttlOf(set), onlyIfLost: reason === 'lost' });
        if (outcome === 'busy') this.#rebuiltElsewhere.set(id, Date.now() + busyRetryMs);
        else this.#rebuiltElsewhere.delete(id);
        if (outcome === 'built') {
          this.#onRebuilt(reason);
          if (reason !== 'boot') this.#log?.info({ setId: id, reason }, 'rank engine: leaderboard set rebuilt from SQL');
        }
        this.#syncedDuringRebuild.delete(id);
        for (const key of synced) {
          const [gameId, playerId] = JSON.parse(key) as [string, string];
          await this.syncPlayer(gameId, playerId, [set]);
        }
        return outcome;
      } catch (error) {
        this.#log?.warn({ err: error, setId: id, reason }, 'rank engine: rebuilding a leaderboard set from SQL failed; SQL answers it until a retry succeeds');
        throw error;
      } finally {
        this.#syncedDuringRebuild.delete(id);
        this.#releaseRebuildSlot();
      }
    })().finally(() => this.#rebuilds.delete(id));
    this.#rebuilds.set(id, rebuild);
    return rebuild;
  }

  async #rebuildSlot(): Promise<void> {
    if (this.#rebuildSlots > 0) {
      this.#rebuildSlots -= 1;
      return;
    }
    await new Promise<void>((resolve) => this.#rebuildQueue.push(resolve));
  }

  #releaseRebuildSlot(): void {
    const next = this.#rebuildQueue.shift();
    if (next) next();
    else this.#rebuildSlots += 1;
  }

  #ttlOf(set: RankedSet): number | undefined {
    const endMs = periodBounds(set)?.endMs ?? Infinity;
    return Number.isFinite(endMs) ? Math.max(1, endMs + endedSetGraceMs - this.#clock.now()) : undefined;
  }

  /** Remembers a write the engine missed; SQL answers the set until it is replayed. */
  #missedWrite(gameId: string, playerId: string, set: RankedSet, id: string): void {
    this.#stale.set(id, set);
    if (this.#overflowed.has(id)) return;
    const key = JSON.stringify([gameId, playerId]);
    let missed = this.#missed.get(key);
    if (!missed) {
      if (this.#missed.size >= maxMissedPlayers) {
        this.#overflowed.add(id);
        return;
      }
      missed = { gameId, playerId, sets: new Map() };
      this.#missed.set(key, missed);
    }
    missed.sets.set(id, set);
  }

  /**
   * Replays the missed writes from SQL (players one by one, overflowed sets by a rebuild); a set
   * answers from the engine again once none of its writes is missing. One replay at a time; it
   * stops when the engine is out of use again (the next recovery goes on with what is left).
   */
  #replayMissed(): Promise<void> {
    if (this.#replaying) return this.#replaying;
    // Cleared in a promise reaction, always after it was set: a replay with nothing to do ends
    // without awaiting anything, and clearing it inside would run before the assignment, leaving
    // a settled replay in place that every later recovery would take for one in progress.
    const replaying = this.#replayRounds().finally(() => {
      this.#replaying = undefined;
    });
    this.#replaying = replaying;
    return replaying;
  }

  async #replayRounds(): Promise<void> {
    for (let round = 0; this.#engine.usable && this.#stale.size > 0; round++) {
      if (round > 0) await new Promise((resolve) => setTimeout(resolve, busyRetryMs));
      const stale = new Map(this.#stale);
      const players = [...this.#missed.values()];
      const overflowed = [...this.#overflowed];
      this.#missed.clear();
      this.#overflowed.clear();
      const rebuilds = overflowed.map(async (id) => {
        // Busy: another instance rebuilds it, perhaps from before the missed writes: again later.
        const outcome = await this.#rebuild(stale.get(id)!, 'resync').catch(() => 'failed' as const);
        if (outcome !== 'built') this.#overflowed.add(id);
      });
      for (const player of players) {
        const sets = [...player.sets].filter(([id]) => !overflowed.includes(id)).map(([, set]) => set);
        // A write missed again is remembered again (and its set stays stale).
        await this.syncPlayer(player.gameId, player.playerId, sets);
      }
      await Promise.all(rebuilds);
      for (const id of stale.keys()) this.#settle(id);
      if (round >= maxReplayRounds) {
        this.#log?.warn({ sets: this.#stale.size }, 'rank engine: missed writes could not all be replayed; those sets are answered from SQL until Redis recovers again');
        return;
      }
    }
  }

  /** A stale set is in step again once no write to it is missing. */
  #settle(id: string): void {
    if (this.#overflowed.has(id)) return;
    for (const missed of this.#missed.values()) if (missed.sets.has(id)) return;
    this.#stale.delete(id);
  }

  /** The set's entries as rank items, one SQL keyset read at a time, so a load never holds them all at once unless the engine does. */
  async *#batchesOf(set: RankedSet): AsyncGenerator<RankItem[]> {
    let after: EntryPosition | undefined;
    for (;;) {
      const batch = await entriesAfter(this.#db, set, after, loadBatchSize);
      if (batch.length > 0) yield batch.map((entry) => rankItemOf(set, entry));
      after = batch.at(-1);
      if (!after || batch.length < loadBatchSize) return;
    }
  }

  async #readSet(set: RankedSet): Promise<RankItem[]> {
    const items: RankItem[] = [];
    for await (const batch of this.#batchesOf(set)) for (const item of batch) items.push(item);
    return items;
  }

  /** Forgets sets whose period has ended. The bookkeeping is synchronous, so holds racing it see a consistent view. */
  async #dropEnded(now: number): Promise<void> {
    const ended: string[] = [];
    let nextEnd = Infinity;
    for (const [id, held] of this.#held) {
      const endMs = periodBounds(held.set)?.endMs ?? Infinity;
      // A set still loading or being rebuilt is dropped on a later look, once that is done.
      if (endMs <= now && !held.loading && !this.#rebuilds.has(id)) ended.push(id);
      else nextEnd = Math.min(nextEnd, endMs);
    }
    for (const id of ended) {
      this.#held.delete(id);
      this.#stale.delete(id);
      this.#rebuiltElsewhere.delete(id);
    }
    this.#nextPeriodEndMs = nextEnd;
    for (const id of ended) await this.#dropQuietly(id);
  }
}

/** Whether two views of a set sort its entries alike (the manifest may have changed the board's order since). */
function sameOrdering(a: RankedSet, b: RankedSet): boolean {
  return a.order === b.order && a.subscoreOrder === b.subscoreOrder;
}

function sameItem(a: HeldItem | undefined, b: HeldItem | undefined): boolean {
  return a !== undefined && b !== undefined && compareRankKeys(a, b) === 0 && a.displayName === b.displayName;
}

/** `entry`'s standing in `set` read from SQL: its rank and up to `radius` entries either side, in a set of `total`. */
export async function standingOfEntryInSql(db: GameDb, set: RankedSet, entry: Entry, total: number, radius: number): Promise<RankedStanding> {
  const [before, above, below] = await Promise.all([
    countBefore(db, set, entry),
    radius > 0 ? entriesBefore(db, set, entry, radius) : [],
    radius > 0 ? entriesAfter(db, set, entry, radius) : [],
  ]);
  const rank = before + 1;
  const own: RankedEntry = { ...entry, rank };
  return {
    total,
    entry: own,
    window: [...above.map((e, i) => ({ ...e, rank: rank - above.length + i })), own, ...below.map((e, i) => ({ ...e, rank: rank + 1 + i }))],
  };
}

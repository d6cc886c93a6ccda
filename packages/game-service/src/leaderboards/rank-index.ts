import type { Kysely } from 'kysely';
import type { Clock } from '@playstack/server-kit';
import {
  countBefore,
  countEntries,
  entriesAfter,
  entriesBefore,
  entriesOfPlayer,
  entriesOfPlayers,
  findEntry,
  type Entry,
  type EntryPosition,
  type LeaderboardTables,
} from './leaderboard-store.js';
import { isCurrentPeriod, parsePeriodKey } from './periods.js';
import { KeyedMutex } from './keyed-mutex.js';
import { andThen, type Awaitable } from '../awaitable.js';
import type { HeldItem, RankEngine, Standing } from './rank-engine.js';
import { compareRankKeys, rankItemOf, rankKeyOf, sortScoreOf, type RankItem } from './rank-order.js';
import { rankedSetId, type RankedSet } from './ranked-board.js';

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

interface HeldSet {
  readonly set: RankedSet;
  loading: Promise<void> | undefined;
}

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
 * the interleaving of concurrent writers. Loads finish before any sync of their set applies.
 */
export class RankIndex {
  readonly #db: Kysely<LeaderboardTables>;
  readonly #engine: RankEngine;
  readonly #clock: Clock;
  readonly #held = new Map<string, HeldSet>();
  readonly #playerTurns = new KeyedMutex();
  #nextPeriodEndMs = Infinity;

  constructor(options: { db: Kysely<any>; engine: RankEngine; clock: Clock }) {
    this.#db = options.db as Kysely<LeaderboardTables>;
    this.#engine = options.engine;
    this.#clock = options.clock;
  }

  get engineKind(): RankEngine['kind'] {
    return this.#engine.kind;
  }

  /** Loads each set into the engine (the boot rebuild); sets of ended periods are skipped. */
  async load(sets: Iterable<RankedSet>): Promise<void> {
    for (const set of sets) await this.#hold(set);
  }

  /** Writes the player's committed rows in these sets to the engine (absent rows are removed). */
  async syncPlayer(gameId: string, playerId: string, sets: readonly RankedSet[]): Promise<void> {
    await this.#playerTurns.run(`${gameId}:${playerId}`, async () => {
      const held: Array<{ set: RankedSet; id: string }> = [];
      for (const set of sets) {
        const id = await this.#hold(set);
        if (id !== undefined) held.push({ set, id });
      }
      if (held.length === 0) return;
      const rows = await entriesOfPlayer(this.#db, gameId, playerId, held.map((h) => h.set));
      for (const { set, id } of held) {
        const row = rows.find((r) => r.boardId === set.boardId && r.period === set.period);
        if (row) await this.#engine.upsert(id, rankItemOf(set.order, row));
        else await this.#engine.remove(id, playerId);
        // The period may have ended while this ran; forget what was just written to it.
        if (!this.#held.has(id)) await this.#engine.drop(id);
      }
    });
  }

  /** Removes a player from every set of a game the engine holds, after their rows were deleted. */
  async syncErasedPlayer(gameId: string, playerId: string): Promise<void> {
    const sets = [...this.#held.values()].filter((h) => h.set.gameId === gameId).map((h) => h.set);
    await this.syncPlayer(gameId, playerId, sets);
  }

  /**
   * Up to `count` entries ranked after a position (from the top without one), with their ranks:
   * from the engine when it can place the position, else from SQL.
   */
  entriesAfter(set: RankedSet, after: EntryPosition | undefined, count: number): Awaitable<RankedEntry[]> {
    return andThen(this.#hold(set), (id) => {
      const placed = id !== undefined ? this.#engine.itemsAfter(id, after && rankKeyOf(set.order, after), count) : undefined;
      return andThen(placed, (found) => (found ? this.#rankedEntries(set, found.items, found.firstRank) : this.#entriesAfterFromSql(set, after, count)));
    });
  }

  async #entriesAfterFromSql(set: RankedSet, after: EntryPosition | undefined, count: number): Promise<RankedEntry[]> {
    const rows = await entriesAfter(this.#db, set, after, count);
    const firstRank = rows.length > 0 ? await this.rankOf(set, rows[0]!) : 0;
    return rows.map((entry, i) => ({ ...entry, rank: firstRank + i }));
  }

  /** The 1-based rank of an entry at a known position. */
  async rankOf(set: RankedSet, position: EntryPosition): Promise<number> {
    const id = await this.#hold(set);
    if (id !== undefined) {
      const standing = await this.#engine.standing(id, position.playerId, 0);
      if (standing.rank !== undefined) return standing.rank;
    }
    return (await countBefore(this.#db, set, position)) + 1;
  }

  /** The player's 1-based rank, or undefined without an entry. */
  async rankOfPlayer(set: RankedSet, playerId: string): Promise<number | undefined> {
    const id = await this.#hold(set);
    if (id !== undefined) return (await this.#engine.standing(id, playerId, 0)).rank;
    const entry = await findEntry(this.#db, set, playerId);
    return entry && (await countBefore(this.#db, set, entry)) + 1;
  }

  /**
   * The player's standing with up to `radius` entries either side (0: none). With the
   * in-process engine holding the set this is answered at once, without a promise.
   */
  standing(set: RankedSet, playerId: string, radius: number): Awaitable<RankedStanding> {
    return andThen(this.#hold(set), (id) =>
      id !== undefined
        ? andThen(this.#engine.standing(id, playerId, radius), (found) => this.#standingOf(set, playerId, found))
        : this.#standingFromSql(set, playerId, radius),
    );
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
    return { playerId: item.playerId, displayName, score: sortScoreOf(set.order, item.sortScore), achievedAt: item.achievedAt, rank };
  }

  async #standingFromSql(set: RankedSet, playerId: string, radius: number): Promise<RankedStanding> {
    const [total, entry] = await Promise.all([countEntries(this.#db, set), findEntry(this.#db, set, playerId)]);
    if (!entry) return { total, entry: undefined, window: [] };
    const [before, above, below] = await Promise.all([
      countBefore(this.#db, set, entry),
      radius > 0 ? entriesBefore(this.#db, set, entry, radius) : [],
      radius > 0 ? entriesAfter(this.#db, set, entry, radius) : [],
    ]);
    const rank = before + 1;
    const own: RankedEntry = { ...entry, rank };
    return {
      total,
      entry: own,
      window: [
        ...above.map((e, i) => ({ ...e, rank: rank - above.length + i })),
        own,
        ...below.map((e, i) => ({ ...e, rank: rank + 1 + i })),
      ],
    };
  }

  /**
   * Compares every held set in the engine with SQL: order, scores, times and names. Meaningful
   * while no writes are in flight; operators and tests use it to prove the two agree.
   */
  async checkConsistency(): Promise<SetConsistency[]> {
    await this.#dropEnded(this.#clock.now());
    const report: SetConsistency[] = [];
    for (const [setId, held] of [...this.#held]) {
      if (held.loading) await held.loading;
      const sqlItems = await this.#readSet(held.set);
      const engineItems = await this.#engine.itemsFrom(setId, 1, sqlItems.length + 1);
      const length = Math.max(sqlItems.length, engineItems.length);
      let firstDifferenceAt: number | undefined;
      for (let i = 0; i < length && firstDifferenceAt === undefined; i++) if (!sameItem(sqlItems[i], engineItems[i])) firstDifferenceAt = i + 1;
      report.push({ setId, engineTotal: engineItems.length, sqlTotal: sqlItems.length, firstDifferenceAt });
    }
    return report;
  }

  /**
   * The set's id in the engine when the engine answers for it (loading it first if needed), else
   * undefined (a past period: SQL answers). Answered at once, without a promise, when the set is
   * held and loaded and no period has ended since the last look: a set is held only once its
   * period has started, and none has ended before `#nextPeriodEndMs`, so it is still current.
   * (A clock set back before a held period's start still finds it held; the engine and SQL agree
   * on it, as `syncPlayer` keeps every held set in step.)
   */
  #hold(set: RankedSet): Awaitable<string | undefined> {
    const id = rankedSetId(set);
    const now = this.#clock.now();
    if (now < this.#nextPeriodEndMs) {
      const held = this.#held.get(id);
      if (held && !held.loading) return id;
    }
    return this.#holdOnceLoaded(set, id, now);
  }

  async #holdOnceLoaded(set: RankedSet, id: string, now: number): Promise<string | undefined> {
    if (now >= this.#nextPeriodEndMs) await this.#dropEnded(now);
    if (!isCurrentPeriod(set.period, now)) return undefined;
    let held = this.#held.get(id);
    if (!held) {
      const created: HeldSet = { set, loading: undefined };
      created.loading = this.#loadSet(set, id).then(
        () => {
          created.loading = undefined;
        },
        (error: unknown) => {
          this.#held.delete(id);
          throw error;
        },
      );
      this.#held.set(id, created);
      this.#nextPeriodEndMs = Math.min(this.#nextPeriodEndMs, parsePeriodKey(set.period)?.endMs ?? Infinity);
      held = created;
    }
    if (held.loading) await held.loading;
    return id;
  }

  async #loadSet(set: RankedSet, id: string): Promise<void> {
    const endMs = parsePeriodKey(set.period)?.endMs ?? Infinity;
    const ttlMs = Number.isFinite(endMs) ? Math.max(1, endMs + endedSetGraceMs - this.#clock.now()) : undefined;
    await this.#engine.replace(id, this.#batchesOf(set), ttlMs);
  }

  /** The set's entries as rank items, one SQL keyset read at a time, so a load never holds them all at once unless the engine does. */
  async *#batchesOf(set: RankedSet): AsyncGenerator<RankItem[]> {
    let after: EntryPosition | undefined;
    for (;;) {
      const batch = await entriesAfter(this.#db, set, after, loadBatchSize);
      if (batch.length > 0) yield batch.map((entry) => rankItemOf(set.order, entry));
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
      const endMs = parsePeriodKey(held.set.period)?.endMs ?? Infinity;
      if (endMs <= now && !held.loading) ended.push(id);
      else nextEnd = Math.min(nextEnd, endMs);
    }
    for (const id of ended) this.#held.delete(id);
    this.#nextPeriodEndMs = nextEnd;
    for (const id of ended) await this.#engine.drop(id);
  }
}

function sameItem(a: HeldItem | undefined, b: HeldItem | undefined): boolean {
  return a !== undefined && b !== undefined && compareRankKeys(a, b) === 0 && a.displayName === b.displayName;
}

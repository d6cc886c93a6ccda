import { ApiError, type Clock, type Dialect } from '@playstack/server-kit';
import { decodeCursor, encodeCursor } from './leaderboard-cursor.js';
import { andThen, awaited, runFlow, type Awaitable, type Flow } from '../awaitable.js';
import { countEntries, deletePlayerEntries, EntryStatements, lockEventEntrance, metadataOfPlayers, type Entry, type EntryPosition } from './leaderboard-store.js';
import { currentCycle, cycleAt, eventState, outsideReason, type EventState } from './event-schedule.js';
import { currentPeriodsOf, periodKeysFor, rankedSetOf, resolvePeriod } from './periods.js';
import type { RankIndex, RankedEntry, RankedStanding } from './rank-index.js';
import { rankedSetId, type RankedBoard, type RankedSet, type SortOrder } from './ranked-board.js';
import { compareRankKeys, rankKeyOf, type RankOrder } from './rank-order.js';
import { rankAmongThemselves, rankedAfter, type ChosenPlayers } from './chosen-players.js';
import { applyOperator, sameResult, type ScoredResult } from './score-operators.js';
import { boardResultOf } from './board-values.js';
import { deleteHiddenPlayer } from './hidden-players-store.js';
import { LeaderboardModeration } from './leaderboard-moderation.js';
import type { AnnounceChange, LeaderboardGame, ScoredBoard } from './leaderboard-game.js';
import './leaderboard-error-codes.js';

export type { AnnounceChange, LeaderboardGame, ScoredBoard } from './leaderboard-game.js';
import type { GameDb } from '../database.js';

/** An accepted run whose derived result feeds the game's boards. */
export interface RecordedRun {
  readonly game: LeaderboardGame;
  readonly playerId: string;
  readonly displayName: string;
  /** The adapter that derived `result`: boards whose `source.adapter` names it take their value from it. */
  readonly adapterId: string;
  readonly result: Readonly<Record<string, number>>;
  /** When the result was achieved (epoch ms); it picks the daily, weekly and monthly periods. */
  readonly achievedAt: number;
}

/** Where a recorded score left the player on one board and period. */
export interface BoardStanding {
  readonly boardId: string;
  /** `all` or the period key (`2026-11-21`, `2026-W47`, `2026-11`). */
  readonly period: string;
  /** The entry's score after the board's operator (for `best`, possibly an earlier better one). */
  readonly score: number;
  readonly rank: number;
  /** True for a first entry or when the entry now ranks higher than before. */
  readonly improved: boolean;
}

/** Why a run did not score on an event board: outside its window (before, after, between cycles) or the window is full. */
export type BoardRefusalReason = 'event-not-started' | 'event-ended' | 'event-full';

/** An event board the run fed but did not score on, and why. */
export interface BoardRefusal {
  readonly boardId: string;
  readonly reason: BoardRefusalReason;
  readonly message: string;
}

/** An event period's window and where it stands (epoch ms, end exclusive). */
export interface EventWindowState {
  readonly startsAt: number;
  readonly endsAt: number;
  readonly state: EventState;
}

/** Recorded but not yet visible in ranks: call `publish()` after the transaction commits. */
export interface PendingStandings {
  /** Event boards fed by the run that refused it, with the reason (known at once). */
  readonly refused: readonly BoardRefusal[];
  /** Updates the rank engine from the committed rows and returns each board and period's standing. */
  publish(): Awaitable<BoardStanding[]>;
}

export interface LeaderboardPage {
  readonly boardId: string;
  readonly period: string;
  /** An event period's window and state; undefined for calendar periods. */
  readonly event: EventWindowState | undefined;
  readonly entries: readonly RankedEntry[];
  readonly nextCursor: string | null;
}

export interface LeaderboardRead {
  readonly period?: string | undefined;
}

/** A read by a player (`viewer`), of the whole board or of chosen players' alone. */
export interface ChosenRead extends LeaderboardRead {
  readonly viewer?: string | undefined;
  readonly players?: ChosenPlayers | undefined;
}

/** Insert-or-lock rounds a run's write tries before giving up (each round needs a racing writer). */
const maxWriteRounds = 5;

/** Leaderboards: the write path other features call, and the reads the routes serve. */
export class Leaderboards {
  readonly #db: GameDb;
  readonly #dialect: Dialect;
  readonly #clock: Clock;
  readonly #games: () => Iterable<LeaderboardGame>;
  readonly #announce: AnnounceChange | undefined;
  readonly #statements: EntryStatements;
  readonly ranks: RankIndex;
  /** Operators' changes to players' entries: hiding, removal, withdrawal of a rejected run. */
  readonly moderation: LeaderboardModeration;

  constructor(options: { db: GameDb; dialect: Dialect; clock: Clock; games: () => Iterable<LeaderboardGame>; ranks: RankIndex; announce?: AnnounceChange | undefined }) {
    this.#db = options.db;
    this.#dialect = options.dialect;
    this.#clock = options.clock;
    this.#games = options.games;
    this.#announce = options.announce;
    this.#statements = new EntryStatements(options.db, options.dialect);
    this.ranks = options.ranks;
    this.moderation = new LeaderboardModeration({ db: options.db, dialect: options.dialect, clock: options.clock, ranks: options.ranks, announce: options.announce });
  }

  /**
   * Records a run's result inside the caller's transaction. Every board of the game whose source
   * is this adapter takes the named output as its score and applies its operator (`best`,
   * `latest`, `sum`) to the player's entry in each period it keeps (keys from `achievedAt`, UTC).
   * Rows are locked in a fixed order, so concurrent runs of one player serialize instead of
   * deadlocking. Throws a RangeError for a score outside ±(2^53 − 1) (an adapter bug).
   *
   * Call `publish()` on the result after the transaction commits (not at all if it rolls back):
   * it brings the rank engine in step with the committed rows and returns the placements.
   */
  recordScores(db: GameDb, run: RecordedRun): Awaitable<PendingStandings> {
    return runFlow(this.#recordScores(db, run));
  }

  /** `recordScores`, as a flow: on SQLite's group commit it runs through without a promise. */
  *#recordScores(db: GameDb, run: RecordedRun): Flow<PendingStandings> {
    // Before any read: publish trusts the rows written here only if no sync read SQL since.
    const mark = this.ranks.syncMark();
    const now = this.#clock.now();
    const refused: BoardRefusal[] = [];
    let targets = run.game.boards
      .filter((board) => board.source.adapter === run.adapterId && typeof run.result[board.source.value] === 'number')
      .flatMap((board) => {
        const scored = boardResultOf(board, run.result, run.achievedAt);
        const outside = board.event && outsideWindow(board, run.achievedAt, now);
        if (outside) {
          refused.push(outside);
          return [];
        }
        return periodKeysFor(board, run.achievedAt).map((period) => ({ board, scored, set: rankedSetOf(run.game.id, board, period) }));
      })
      .sort((a, b) => compareText(rankedSetId(a.set), rankedSetId(b.set)));

    const entryWith = (scored: ScoredResult): Entry => ({ ...scored, playerId: run.playerId, displayName: run.displayName });
    const sets = targets.map((t) => t.set);
    const sameSet = (set: RankedSet) => (row: { boardId: string; period: string }) => row.boardId === set.boardId && row.period === set.period;
    const existingRows = yield* awaited(this.#statements.entriesOfPlayer(db, run.game.id, run.playerId, sets));
    const full = yield* awaited(this.#fullEventsFor(db, run, targets.filter(({ set }) => set.window && !existingRows.some(sameSet(set)))));
    if (full.length > 0) {
      refused.push(...full);
      targets = targets.filter((t) => !full.some((f) => f.boardId === t.board.id));
    }
    const inserted: Array<{ boardId: string; period: string; hidden: boolean }> = [];
    let missing = targets.filter(({ set }) => !existingRows.some(sameSet(set)));
    // A concurrent run may create an entry between our read and our insert (we then lock and
    // combine with it), and an erasure may delete that one again before we lock it (we then
    // insert once more): a few rounds settle every set.
    for (let round = 0; missing.length > 0; round++) {
      if (round === maxWriteRounds) throw new Error(`entries of ${run.playerId} kept changing during the write`);
      const created = yield* awaited(
        this.#statements.insertEntriesIfAbsent(
          db,
          run.game.id,
          missing.map(({ set, scored }) => ({ boardId: set.boardId, period: set.period, entry: entryWith(scored) })),
          now,
        ),
      );
      inserted.push(...created);
      const raced = missing.filter(({ set }) => !created.some(sameSet(set))).map((t) => t.set);
      if (raced.length > 0) existingRows.push(...(yield* awaited(this.#statements.entriesOfPlayer(db, run.game.id, run.playerId, raced))));
      missing = missing.filter(({ set }) => !inserted.some(sameSet(set)) && !existingRows.some(sameSet(set)));
    }

    // `row`: the entry as this transaction leaves it, undefined when hidden (it does not rank).
    const outcomes: Array<{ set: RankedSet; score: number; improved: boolean; row: Entry | undefined }> = [];
    for (const { board, scored, set } of targets) {
      const created = inserted.find(sameSet(set));
      if (created) {
        outcomes.push({ set, score: scored.score, improved: true, row: created.hidden ? undefined : entryWith(scored) });
        continue;
      }
      const existing = existingRows.find(sameSet(set))!;
      const { result, improved } = applyOperator(board.operator, set, existing, scored);
      let row: Entry = existing;
      if (!sameResult(result, existing) || existing.displayName !== run.displayName) {
        row = entryWith(result);
        yield* awaited(this.#statements.updateEntry(db, set, row, now));
      }
      outcomes.push({ set, score: result.score, improved, row: existing.hidden ? undefined : row });
    }
    if (targets.length > 0 && this.#announce) yield* awaited(this.#announce(db, run.game.id, run.playerId));

    return {
      refused,
      // Without a promise when the in-process engine holds every set (nearly every run): a
      // run's placements are six or so writes and reads of memory.
      publish: () =>
        andThen(this.ranks.syncPlayerWith(run.game.id, run.playerId, outcomes.map((o) => o.set), outcomes.map((o) => o.row), mark), () => {
          const ranks = outcomes.map(({ set }) => this.ranks.rankOfPlayer(set, run.playerId));
          // An entry is missing only when the player was erased between the commit and now.
          const placementsOf = (found: ReadonlyArray<number | undefined>): BoardStanding[] =>
            outcomes.flatMap(({ set, score, improved }, index) => {
              const rank = found[index];
              return rank === undefined ? [] : [{ boardId: set.boardId, period: set.period, score, rank, improved }];
            });
          return ranks.some((rank) => rank instanceof Promise) ? Promise.all(ranks).then(placementsOf) : placementsOf(ranks as Array<number | undefined>);
        }),
    };
  }

  /**
   * A page in rank order after `cursor` (from the top without one). `viewer`: the player asking,
   * who sees their own entry in place when hidden in shadow mode (the entries after it one rank
   * lower, as in their `/me`). `players`: the board of those players alone (with the viewer),
   * ranked among themselves.
   */
  page(game: LeaderboardGame, boardId: string, query: ChosenRead & { cursor?: string | undefined; limit: number }): Awaitable<LeaderboardPage> {
    const { board, set } = this.#resolve(game, boardId, query.period);
    if (!board.metadata) return this.#page(set, query);
    return andThen(this.#page(set, query), (page) => this.#withMetadata(set, page.entries).then((entries) => ({ ...page, entries })));
  }

  #page(set: RankedSet, query: ChosenRead & { cursor?: string | undefined; limit: number }): Awaitable<LeaderboardPage> {
    const boardId = set.boardId;
    const { cursor, limit, viewer, players } = query;
    const pageOf = (rows: readonly RankedEntry[]): LeaderboardPage => {
      const shown = rows.slice(0, limit);
      const last = shown.at(-1);
      return { boardId, period: set.period, event: this.eventOf(set), entries: shown, nextCursor: rows.length > limit && last ? encodeCursor(set, last, players?.digest) : null };
    };
    const after = cursor === undefined ? undefined : decodeCursor(set, cursor, players?.digest);
    if (players) return andThen(this.#rankedAmong(set, players, viewer), (ranked) => pageOf(rankedAfter(set, ranked, after, limit)));
    const rows = this.ranks.entriesAfter(set, after, limit + 1);
    if (viewer === undefined) return andThen(rows, pageOf);
    // Asked beside the page (not after it), so a shared engine answers both in one round trip.
    const own = this.ranks.entriesOfPlayers(set, [viewer]);
    return andThen(rows, (found) =>
      andThen(own, (visible) => {
        if (visible.length > 0) return pageOf(found);
        return this.moderation.shadowStanding(set, viewer, 0).then((shadow) => pageOf(shadow?.entry ? withOwnEntry(set, found, shadow.entry, after, limit) : found));
      }),
    );
  }

  /**
   * The caller's entry and the set's size; with a radius, also the entries around them. Like
   * `page`, answered at once (no promise) when the in-process engine holds the set and the
   * player has an entry in it (without one, SQL is asked whether they are hidden in shadow mode).
   * With `players`, among those players alone (and the caller).
   */
  standing(
    game: LeaderboardGame,
    boardId: string,
    playerId: string,
    query: ChosenRead & { radius: number },
  ): Awaitable<{ period: string; event: EventWindowState | undefined } & RankedStanding> {
    const { board, set } = this.#resolve(game, boardId, query.period);
    if (!board.metadata) return this.#standing(set, playerId, query);
    return andThen(this.#standing(set, playerId, query), async (standing) => {
      const window = await this.#withMetadata(set, standing.window);
      return { ...standing, window, entry: standing.entry && window.find((e) => e.playerId === playerId) };
    });
  }

  #standing(set: RankedSet, playerId: string, query: ChosenRead & { radius: number }): Awaitable<{ period: string; event: EventWindowState | undefined } & RankedStanding> {
    const period = { period: set.period, event: this.eventOf(set) };
    if (query.players) {
      return andThen(this.#rankedAmong(set, query.players, playerId), (ranked) => {
        const at = ranked.findIndex((e) => e.playerId === playerId);
        if (at === -1) return { ...period, total: ranked.length, entry: undefined, window: [] };
        return { ...period, total: ranked.length, entry: ranked[at], window: ranked.slice(Math.max(0, at - query.radius), at + query.radius + 1) };
      });
    }
    return andThen(this.ranks.standing(set, playerId, query.radius), (standing) => {
      if (standing.entry !== undefined) return { ...period, ...standing };
      // No visible entry: a player hidden in shadow mode still sees their own.
      return this.moderation.shadowStanding(set, playerId, query.radius).then((shadow) => ({ ...period, ...(shadow ?? standing) }));
    });
  }

  /**
   * The chosen players' visible entries ranked among themselves; the viewer's own entry too when
   * they are hidden in shadow mode (they see themselves, nobody else does).
   */
  #rankedAmong(set: RankedSet, players: ChosenPlayers, viewer: string | undefined): Awaitable<RankedEntry[]> {
    return andThen(this.ranks.entriesOfPlayers(set, players.ids), (entries) => {
      if (viewer === undefined || entries.some((e) => e.playerId === viewer)) return rankAmongThemselves(set, entries);
      return this.moderation.shadowEntry(set, viewer).then((own) => rankAmongThemselves(set, own ? [...entries, own] : entries));
    });
  }

  /** An event set's window and its state now; undefined for a calendar period. */
  eventOf(set: RankedSet): EventWindowState | undefined {
    if (!set.window) return undefined;
    return { startsAt: set.window.startMs, endsAt: set.window.endMs, state: eventState(set.window, this.#clock.now()) };
  }

  /**
   * The capped event windows among `entering` (sets the player has no entry in yet) that are
   * full: a newcomer is refused there, while entrants keep improving. The count includes hidden
   * entries (a hidden player still holds their place until an operator removes the entry); on
   * PostgreSQL newcomers of a game enter one at a time, so two cannot take the last place.
   */
  #fullEventsFor(db: GameDb, run: RecordedRun, entering: ReadonlyArray<{ board: LeaderboardGame['boards'][number]; set: RankedSet }>): Awaitable<BoardRefusal[]> {
    const capped = entering.filter(({ board }) => board.event?.maxEntrants !== undefined);
    return capped.length === 0 ? [] : this.#fullAmong(db, run, capped);
  }

  async #fullAmong(db: GameDb, run: RecordedRun, capped: ReadonlyArray<{ board: LeaderboardGame['boards'][number]; set: RankedSet }>): Promise<BoardRefusal[]> {
    await lockEventEntrance(db, this.#dialect, run.game.id);
    const full: BoardRefusal[] = [];
    for (const { board, set } of capped) {
      const maxEntrants = board.event!.maxEntrants!;
      // Hidden players' entries count: they keep their place until an operator removes the entry.
      if ((await countEntries(db, set, { includeHidden: true })) < maxEntrants) continue;
      full.push({ boardId: board.id, reason: 'event-full', message: `the event window ${set.period} of board "${board.id}" has its ${maxEntrants} entrants` });
    }
    return full;
  }

  /** Removes a player's entries in every board and period of a game (and any hiding), inside the erasure transaction. */
  async eraseEntries(trx: GameDb, gameId: string, playerId: string): Promise<number> {
    await deleteHiddenPlayer(trx, gameId, playerId);
    const erased = await deletePlayerEntries(trx, this.#dialect, gameId, playerId);
    if (erased > 0) await this.#announce?.(trx, gameId, playerId);
    return erased;
  }

  /** After the erasure commits: removes the player from the rank engine. */
  async afterErase(gameId: string, playerId: string): Promise<void> {
    await this.ranks.syncErasedPlayer(gameId, playerId);
  }

  /** Loads the current periods of every board into the rank engine (the boot rebuild). */
  async loadRankEngine(): Promise<void> {
    const now = this.#clock.now();
    const sets: RankedSet[] = [];
    for (const game of this.#games()) {
      for (const board of game.boards) for (const period of currentPeriodsOf(board, now)) sets.push(rankedSetOf(game.id, board, period));
    }
    await this.ranks.load(sets);
  }

  #resolve(game: LeaderboardGame, boardId: string, period = 'all'): { board: ScoredBoard; set: RankedSet } {
    const board = game.boards.find((b) => b.id === boardId);
    if (!board) throw new ApiError('board-not-found', `Game "${game.id}" has no board "${boardId}".`);
    return { board, set: rankedSetOf(game.id, board, resolvePeriod(board, period, this.#clock.now())) };
  }

  /**
   * The entries with their metadata, read from SQL (the rank engine holds positions and names
   * only): asked only of boards that keep metadata, one indexed read for a page or a window.
   */
  async #withMetadata(set: RankedSet, entries: readonly RankedEntry[]): Promise<RankedEntry[]> {
    const found = await metadataOfPlayers(this.#db, set, entries.map((e) => e.playerId));
    return entries.map((entry) => {
      const metadata = found.get(entry.playerId);
      return metadata === undefined ? entry : { ...entry, metadata };
    });
  }
}

/**
 * A page as a shadow-hidden viewer sees it: their own entry (`own`, ranked among the visible
 * ones) in place when it falls after `after`, and the visible entries after it one rank lower.
 */
function withOwnEntry(order: RankOrder, rows: readonly RankedEntry[], own: RankedEntry, after: EntryPosition | undefined, limit: number): RankedEntry[] {
  const ownKey = rankKeyOf(order, own);
  const shifted = rows.map((row) => (compareRankKeys(rankKeyOf(order, row), ownKey) > 0 ? { ...row, rank: row.rank + 1 } : row));
  if (after && compareRankKeys(ownKey, rankKeyOf(order, after)) <= 0) return shifted;
  const at = shifted.findIndex((row) => compareRankKeys(rankKeyOf(order, row), ownKey) > 0);
  // After every row read: on this page only when the rows end the board.
  if (at === -1) return rows.length > limit ? shifted : [...shifted, own];
  return [...shifted.slice(0, at), own, ...shifted.slice(at)];
}

/**
 * Why an event board does not take a result achieved at `achievedAt`, written at `nowMs`: outside
 * every window, or in one that has ended since (a queued run arriving after the end: the
 * standings are frozen). Undefined when it takes it.
 */
function outsideWindow(board: RankedBoard, achievedAt: number, nowMs: number): BoardRefusal | undefined {
  const event = board.event!;
  const cycle = cycleAt(event, achievedAt);
  if (cycle && nowMs < cycle.endMs) return undefined;
  if (cycle) return { boardId: board.id, reason: 'event-ended', message: `the event window ${cycle.key} of board "${board.id}" ended at ${new Date(cycle.endMs).toISOString()}; its standings are frozen` };
  const reason = outsideReason(event, achievedAt);
  const message =
    reason === 'event-not-started'
      ? `board "${board.id}"'s event starts at ${new Date(currentCycle(event, achievedAt).startMs).toISOString()}`
      : `board "${board.id}" has no event window open at ${new Date(achievedAt).toISOString()}`;
  return { boardId: board.id, reason, message };
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

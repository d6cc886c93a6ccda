import type { Clock, Dialect } from '@playstack/server-kit';
import {
  allEntriesOfPlayer,
  countEntries,
  deleteEntry,
  entriesOfPlayer,
  findEntryIncludingHidden,
  isLockTimeout,
  lockEntriesForModeration,
  setPlayerEntriesHidden,
  updateEntry,
  type Entry,
} from './leaderboard-store.js';
import { deleteHiddenPlayer, expiredHiddenPlayers, findHiddenPlayer, saveHiddenPlayer, type HiddenPlayer } from './hidden-players-store.js';
import { periodKeyOfResult, periodKeysFor, rankedSetOf } from './periods.js';
import { standingOfEntryInSql, type RankIndex, type RankedStanding } from './rank-index.js';
import { rankedSetId, type RankedSet } from './ranked-board.js';
import { applyOperator, sameResult, type ScoredResult } from './score-operators.js';
import { boardResultOf } from './board-values.js';
import type { AnnounceChange, LeaderboardGame } from './leaderboard-game.js';
import type { GameDb } from '../database.js';

export type { HiddenPlayer };

/** How long a moderation transaction waits for one lock before it starts over (PostgreSQL). */
const moderationLockTimeoutMs = 200;
/** Attempts before a moderation transaction that keeps meeting busy locks fails. */
const maxModerationAttempts = 25;

/** A result a run fed to the boards: what a withdrawal takes back, and what the others keep. */
export interface ScoringResult {
  readonly adapterId: string;
  readonly result: Readonly<Record<string, number>>;
  readonly achievedAt: number;
}

/** A player's entry as operators see it, hidden or not. */
export type ModeratedEntry = Entry & { readonly boardId: string; readonly period: string; readonly hidden: boolean };

/** How one entry changed: undefined before (none) or after (removed). */
export interface EntryChange {
  readonly boardId: string;
  readonly period: string;
  readonly before: Entry | undefined;
  readonly after: Entry | undefined;
}

/**
 * What operators do to a player's entries: hide them from every rank (entries kept as they are,
 * so unhiding restores them exactly), remove one, and withdraw a rejected run's results. Each
 * write runs inside the caller's transaction; `afterCommit` then brings the rank engine in step
 * (and the other instances hear of it through the same announcement as a run's scores).
 */
export class LeaderboardModeration {
  readonly #db: GameDb;
  readonly #dialect: Dialect;
  readonly #ranks: RankIndex;
  readonly #announce: AnnounceChange | undefined;
  readonly #clock: Clock;

  constructor(options: { db: GameDb; dialect: Dialect; clock: Clock; ranks: RankIndex; announce: AnnounceChange | undefined }) {
    this.#db = options.db;
    this.#clock = options.clock;
    this.#dialect = options.dialect;
    this.#ranks = options.ranks;
    this.#announce = options.announce;
  }

  /**
   * Runs a moderation write in its own transaction. On PostgreSQL it first waits for the score
   * writes in flight to commit and holds off new ones until it ends (moderation is rare and
   * short), so what it reads (the player's rows, their remaining runs) is complete and no run
   * inserts a first entry that misses a hiding committed meanwhile. It never waits long for a
   * lock while holding others (a run's group commit may hold a row it needs and wait for the
   * table): it gives up and tries again instead. SQLite writes one at a time already.
   */
  async transaction<T>(write: (trx: GameDb) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#db.transaction().execute(async (trx) => {
          await lockEntriesForModeration(trx, this.#dialect, moderationLockTimeoutMs);
          return write(trx);
        });
      } catch (error) {
        if (!isLockTimeout(error) || attempt === maxModerationAttempts) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * moderationLockTimeoutMs * attempt));
      }
    }
  }

  /** The player's hiding, or undefined when visible (read in `db`: a transaction, or the database). */
  hiding(gameId: string, playerId: string, db: GameDb = this.#db): Promise<HiddenPlayer | undefined> {
    return findHiddenPlayer(db, gameId, playerId);
  }

  /** The player's entries on every board and period of a game, hidden ones included. */
  entriesOf(gameId: string, playerId: string): Promise<ModeratedEntry[]> {
    return allEntriesOfPlayer(this.#db, gameId, playerId);
  }

  /** Hides the player from every board and period (or changes how); how many entries it holds. */
  async hide(trx: GameDb, hiding: HiddenPlayer): Promise<number> {
    await saveHiddenPlayer(trx, hiding);
    const entries = await setPlayerEntriesHidden(trx, this.#dialect, hiding.gameId, hiding.playerId, true);
    await this.#announce?.(trx, hiding.gameId, hiding.playerId);
    return entries;
  }

  /** Ends a hiding: every entry ranks again as it was; how many entries came back. */
  async unhide(trx: GameDb, gameId: string, playerId: string): Promise<number> {
    await deleteHiddenPlayer(trx, gameId, playerId);
    const entries = await setPlayerEntriesHidden(trx, this.#dialect, gameId, playerId, false);
    await this.#announce?.(trx, gameId, playerId);
    return entries;
  }

  /** Hidings whose end time has come. */
  expired(now: number, limit: number): Promise<HiddenPlayer[]> {
    return expiredHiddenPlayers(this.#db, now, limit);
  }

  /** Removes one entry (one board, one period key); the entry removed, or undefined. */
  async removeEntry(trx: GameDb, set: RankedSet, playerId: string): Promise<Entry | undefined> {
    const [existing] = await entriesOfPlayer(trx, set.gameId, playerId, [set], { lock: this.#dialect });
    if (!existing || !(await deleteEntry(trx, set, playerId))) return undefined;
    await this.#announce?.(trx, set.gameId, playerId);
    return existing;
  }

  /**
   * Takes a run's results back from every board and period they fed, as if the run had been
   * refused: each entry is recomputed from the player's `remaining` results in that period with
   * the board's operator (a `sum` loses the run's score, a `best` falls back to the next best
   * run, a `latest` to the one before), or removed when none is left.
   */
  async withdraw(trx: GameDb, game: LeaderboardGame, playerId: string, withdrawn: ScoringResult, remaining: readonly ScoringResult[]): Promise<EntryChange[]> {
    const targets = game.boards
      .filter((board) => board.source.adapter === withdrawn.adapterId && typeof withdrawn.result[board.source.value] === 'number')
      .flatMap((board) => periodKeysFor(board, withdrawn.achievedAt).map((period) => ({ board, kind: period.kind, set: rankedSetOf(game.id, board, period) })))
      .sort((a, b) => (rankedSetId(a.set) < rankedSetId(b.set) ? -1 : 1));
    const existing = await entriesOfPlayer(trx, game.id, playerId, targets.map((t) => t.set), { lock: this.#dialect });
    const changes: EntryChange[] = [];
    for (const { board, kind, set } of targets) {
      const before = existing.find((row) => row.boardId === set.boardId && row.period === set.period);
      // Already gone (an operator removed it): nothing to take back.
      if (!before) continue;
      let kept: ScoredResult | undefined;
      const feeding = remaining
        .filter((r) => r.adapterId === board.source.adapter && typeof r.result[board.source.value] === 'number')
        .filter((r) => periodKeyOfResult(board, kind, r.achievedAt) === set.period);
      for (const r of feeding) kept = applyOperator(board.operator, set, kept, boardResultOf(board, r.result, r.achievedAt)).result;
      const { boardId: _board, period: _period, ...entry } = before;
      if (!kept) {
        await deleteEntry(trx, set, playerId);
        changes.push({ boardId: set.boardId, period: set.period, before: entry, after: undefined });
      } else if (!sameResult(kept, before)) {
        const after: Entry = { ...kept, playerId, displayName: before.displayName };
        await updateEntry(trx, set, after, this.#clock.now());
        changes.push({ boardId: set.boardId, period: set.period, before: entry, after });
      }
    }
    if (changes.length > 0) await this.#announce?.(trx, game.id, playerId);
    return changes;
  }

  /** After the change commits: the rank engine follows SQL for this player in every set it holds. */
  async afterCommit(gameId: string, playerId: string): Promise<void> {
    await this.#ranks.syncChangedPlayer(gameId, playerId);
  }

  /** The player's own entry in the set when they are hidden in shadow mode; undefined for anyone else. */
  async shadowEntry(set: RankedSet, playerId: string): Promise<Entry | undefined> {
    const hiding = await findHiddenPlayer(this.#db, set.gameId, playerId);
    if (!hiding?.shadow) return undefined;
    return findEntryIncludingHidden(this.#db, set, playerId);
  }

  /**
   * A shadow-hidden player's own view: their entry ranked among the visible ones (as if they
   * were still on the board), the total counting them, and the visible entries around them.
   * Undefined for anyone else (a visible player, or one hidden without shadow mode).
   */
  async shadowStanding(set: RankedSet, playerId: string, radius: number): Promise<RankedStanding | undefined> {
    const entry = await this.shadowEntry(set, playerId);
    if (!entry) return undefined;
    // The hidden entry counts for its owner alone: one more than the visible entries.
    return standingOfEntryInSql(this.#db, set, entry, (await countEntries(this.#db, set)) + 1, radius);
  }
}

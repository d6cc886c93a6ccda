import type { FastifyBaseLogger } from 'fastify';
import { ApiError, type Clock, type Database } from '@playstack/server-kit';
import { sessionsOfPlayer, type PlayerSession } from '../auth/player-sessions.js';
import type { SessionService } from '../auth/session-service.js';
import type { Leaderboards } from '../leaderboards/leaderboard-service.js';
import type { EntryChange, HiddenPlayer, ModeratedEntry } from '../leaderboards/leaderboard-moderation.js';
import { rankedSetOf, resolvePeriod } from '../leaderboards/periods.js';
import type { GameDefinition } from '../manifest/manifest-schema.js';
import type { ErasureCounts, PlayerErasure } from '../players/player-erasure.js';
import { findPlayerRecord, searchPlayers, type PlayerRecord } from '../players/player-service.js';
import type { RunRecord } from '../runs/run-record.js';
import { latestRunsOfPlayer, reviewFlaggedRun, runOfGame, scoringResultsOfPlayer, type RunReview } from '../runs/run-review.js';
import { insertAuditEntry, listAuditEntries, type AuditEntry, type AuditFilter, type ModerationAction } from './moderation-audit-store.js';
import './moderation-error-codes.js';

export type { AuditEntry } from './moderation-audit-store.js';
import type { GameDatabase, GameDb } from '../database.js';

/** Who acts, and why: every action carries both into the audit log. */
export interface Actor {
  /** The operator's email (`system` for a hiding that ended by itself). */
  readonly actor: string;
  readonly reason: string;
}

/** A player's entry with where it ranks now (null while hidden). */
export type PlayerPageEntry = ModeratedEntry & { readonly rank: number | null };

/** Everything an operator sees of one player. */
export interface PlayerView {
  readonly player: PlayerRecord;
  readonly hiding: HiddenPlayer | null;
  readonly sessions: PlayerSession[];
  readonly runs: RunRecord[];
  readonly entries: PlayerPageEntry[];
  readonly audit: AuditEntry[];
}

/** Rows of each kind a player page shows (the newest). */
const playerPageRows = 50;
/** Hidings ended per sweep; the rest wait for the next one. */
const expiredPerSweep = 100;

interface ModerationDeps {
  database: Database<GameDatabase>;
  clock: Clock;
  games: { require(gameId: string): GameDefinition };
  leaderboards: Leaderboards;
  sessions: Pick<SessionService, 'revokePlayer'>;
  erasure: PlayerErasure;
  log: FastifyBaseLogger;
}

/**
 * Operators' actions on players: find them, see them whole, hide them from every board (or in
 * shadow mode), unhide, remove one entry, revoke their sessions, erase them, review a flagged
 * run. Each action is recorded in the audit log with who, why, and what it changed.
 */
export class Moderation {
  readonly #deps: ModerationDeps;

  constructor(deps: ModerationDeps) {
    this.#deps = deps;
  }

  get #db(): GameDb {
    return this.#deps.database.db;
  }

  /** Players matching an id, a platform subject, or part of a display name, in every game or one. */
  findPlayers(query: string, options: { gameId?: string | undefined; limit: number }): Promise<PlayerRecord[]> {
    return searchPlayers(this.#db, query, options);
  }

  async player(gameId: string, playerId: string): Promise<PlayerView> {
    const game = this.#deps.games.require(gameId);
    const player = await this.#requirePlayer(gameId, playerId);
    const moderation = this.#deps.leaderboards.moderation;
    const [hiding, sessions, runs, entries, audit] = await Promise.all([
      moderation.hiding(gameId, playerId),
      sessionsOfPlayer(this.#db, gameId, playerId, playerPageRows),
      latestRunsOfPlayer(this.#db, gameId, playerId, playerPageRows),
      moderation.entriesOf(gameId, playerId),
      listAuditEntries(this.#db, { gameId, playerId, limit: playerPageRows }),
    ]);
    const ranked = await Promise.all(
      entries.map(async (entry): Promise<PlayerPageEntry> => {
        const board = game.boards.find((b) => b.id === entry.boardId);
        if (entry.hidden || !board) return { ...entry, rank: null };
        const rank = await this.#deps.leaderboards.ranks.rankOfPlayer({ gameId, boardId: board.id, order: board.order, period: entry.period }, playerId);
        return { ...entry, rank: rank ?? null };
      }),
    );
    return { player, hiding: hiding ?? null, sessions, runs: runs.runs, entries: ranked, audit: audit.entries };
  }

  audit(filter: AuditFilter): Promise<{ entries: AuditEntry[]; nextBeforeId: number | null }> {
    return listAuditEntries(this.#db, filter);
  }

  /**
   * Hides the player from every board and period at once (their entries leave every rank; the
   * others close up), until `until` (epoch ms) or until unhidden. In shadow mode the player still
   * sees their own entry and rank. Hiding a hidden player changes the option or the end time.
   */
  async hide(gameId: string, playerId: string, options: { shadow: boolean; until: number | null }, by: Actor): Promise<AuditEntry> {
    await this.#requirePlayer(gameId, playerId);
    const now = this.#deps.clock.now();
    if (options.until !== null && options.until <= now) throw new ApiError('invalid-request', 'until must be in the future.');
    const moderation = this.#deps.leaderboards.moderation;
    const audit = await moderation.transaction(async (trx) => {
      const before = await moderation.hiding(gameId, playerId, trx);
      const hiding: HiddenPlayer = { gameId, playerId, shadow: options.shadow, hiddenAt: before?.hiddenAt ?? now, hiddenUntil: options.until };
      const entries = await moderation.hide(trx, hiding);
      return this.#record(trx, gameId, playerId, 'hide', by, before ? hidingState(before) : { hidden: false }, { ...hidingState(hiding), entries });
    });
    await moderation.afterCommit(gameId, playerId);
    return audit;
  }

  /** Shows a hidden player again: every entry ranks again exactly as it was kept. */
  async unhide(gameId: string, playerId: string, by: Actor): Promise<AuditEntry> {
    const moderation = this.#deps.leaderboards.moderation;
    const audit = await moderation.transaction(async (trx) => {
      const before = await moderation.hiding(gameId, playerId, trx);
      if (!before) throw new ApiError('player-not-hidden', `Player "${playerId}" of game "${gameId}" is not hidden.`);
      const entries = await moderation.unhide(trx, gameId, playerId);
      return this.#record(trx, gameId, playerId, 'unhide', by, hidingState(before), { hidden: false, entries });
    });
    await moderation.afterCommit(gameId, playerId);
    return audit;
  }

  /** Ends the hidings whose time has come (recorded as the `system`'s unhide); how many ended. */
  async unhideExpired(): Promise<number> {
    const expired = await this.#deps.leaderboards.moderation.expired(this.#deps.clock.now(), expiredPerSweep);
    let ended = 0;
    for (const hiding of expired) {
      const reason = `hidden until ${new Date(hiding.hiddenUntil!).toISOString()}`;
      try {
        await this.unhide(hiding.gameId, hiding.playerId, { actor: 'system', reason });
        ended += 1;
      } catch (error) {
        // Another instance (or an operator) ended it first.
        if (!(error instanceof ApiError && error.code === 'player-not-hidden')) throw error;
      }
    }
    return ended;
  }

  /** Removes one entry: one board, one period (`all`, a period key, or a period name for the current one). */
  async removeEntry(gameId: string, playerId: string, target: { boardId: string; period: string }, by: Actor): Promise<AuditEntry> {
    const game = this.#deps.games.require(gameId);
    const board = game.boards.find((b) => b.id === target.boardId);
    if (!board) throw new ApiError('board-not-found', `Game "${gameId}" has no board "${target.boardId}".`);
    const set = rankedSetOf(gameId, board, resolvePeriod(board, target.period, this.#deps.clock.now()));
    const period = set.period;
    const moderation = this.#deps.leaderboards.moderation;
    const audit = await moderation.transaction(async (trx) => {
      const removed = await moderation.removeEntry(trx, set, playerId);
      if (!removed) throw new ApiError('entry-not-found', `Player "${playerId}" has no entry on board "${board.id}" for period "${period}".`);
      return this.#record(trx, gameId, playerId, 'remove-entry', by, { boardId: board.id, period, score: removed.score, achievedAt: removed.achievedAt }, null);
    });
    await moderation.afterCommit(gameId, playerId);
    return audit;
  }

  /** Ends every live sign-in of the player; they sign in again to play on. */
  async revokeSessions(gameId: string, playerId: string, by: Actor): Promise<AuditEntry> {
    await this.#requirePlayer(gameId, playerId);
    const revoked = await this.#deps.sessions.revokePlayer(gameId, playerId);
    return this.#record(this.#db, gameId, playerId, 'revoke-sessions', by, { liveSessions: revoked }, { liveSessions: 0 });
  }

  /** Erases the player's data: the same erasure as `DELETE /player`. */
  async erase(gameId: string, playerId: string, by: Actor): Promise<AuditEntry & { deleted: ErasureCounts }> {
    await this.#requirePlayer(gameId, playerId);
    const deleted = await this.#deps.erasure.erase(this.#deps.database, { gameId, playerId }, this.#deps.log);
    const audit = await this.#record(this.#db, gameId, playerId, 'erase', by, null, { deleted });
    return { ...audit, deleted };
  }

  /**
   * Reviews a flagged run: `kept` leaves everything as it is; `rejected` refuses the run after the
   * fact, withdrawing its scores from every board and period it fed.
   */
  async reviewRun(gameId: string, runId: number, review: RunReview, by: Actor): Promise<AuditEntry> {
    const game = this.#deps.games.require(gameId);
    const moderation = this.#deps.leaderboards.moderation;
    let playerId = '';
    const audit = await moderation.transaction(async (trx) => {
      const run = await runOfGame(trx, gameId, runId);
      if (!run) throw new ApiError('run-not-found', `Game "${gameId}" has no run #${runId}.`);
      playerId = run.playerId;
      if (!(await reviewFlaggedRun(trx, gameId, runId, review, `rejected by an operator: ${by.reason}`, this.#deps.clock.now()))) {
        throw new ApiError('run-not-reviewable', `Run #${runId} is ${run.review ? `already reviewed (${run.review})` : run.status}: only flagged runs not yet reviewed can be.`);
      }
      let changes: EntryChange[] = [];
      if (review === 'rejected' && run.result) {
        const remaining = await scoringResultsOfPlayer(trx, gameId, run.playerId);
        changes = await moderation.withdraw(trx, game, run.playerId, { adapterId: run.adapterId, result: run.result, achievedAt: run.createdAt }, remaining);
      }
      const after = review === 'rejected' ? { status: 'rejected', review, entries: changes } : { status: 'flagged', review };
      return this.#record(trx, gameId, run.playerId, 'review-run', by, { run: runId, runId: run.runId, status: run.status, review: null }, after);
    });
    await moderation.afterCommit(gameId, playerId);
    return audit;
  }

  async #requirePlayer(gameId: string, playerId: string): Promise<PlayerRecord> {
    this.#deps.games.require(gameId);
    const player = await findPlayerRecord(this.#db, gameId, playerId);
    if (!player) throw new ApiError('player-not-found', `Game "${gameId}" has no player "${playerId}".`);
    return player;
  }

  #record(db: GameDb, gameId: string, playerId: string, action: ModerationAction, by: Actor, before: unknown, after: unknown): Promise<AuditEntry> {
    return insertAuditEntry(db, { gameId, playerId, actor: by.actor, action, reason: by.reason, before, after, at: this.#deps.clock.now() });
  }
}

function hidingState(hiding: HiddenPlayer): { hidden: true; shadow: boolean; until: string | null } {
  return { hidden: true, shadow: hiding.shadow, until: hiding.hiddenUntil === null ? null : new Date(hiding.hiddenUntil).toISOString() };
}

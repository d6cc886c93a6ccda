import type { GameDb } from '../database.js';
import type { RankedBoard } from './ranked-board.js';
import type { ScoreFormat } from '../manifest/score-format.js';

// What leaderboards need of a game and of the instances around them: types shared by the
// leaderboard service and its moderation, which the service builds.

/** A board with the adapter output its scores come from; the manifest's `BoardDefinition` fits. */
export interface ScoredBoard extends RankedBoard {
  readonly source: { readonly adapter: string; readonly value: string };
  /** How its scores read (integer when absent), and the unit shown after them. */
  readonly format?: ScoreFormat | undefined;
  readonly unit?: string | undefined;
  /** Adapter outputs kept with each entry (from the run the entry stands for), bounded as JSON bytes. */
  readonly metadata?: BoardMetadata | undefined;
}

/** Which outputs of the adapter's result a board keeps with its entries, and their bound. */
export interface BoardMetadata {
  readonly values: readonly string[];
  /** Most bytes the kept outputs may take as JSON; 256 when absent. */
  readonly maxBytes?: number | undefined;
}

/** A game as leaderboards see it; the manifest's `GameDefinition` fits. */
export interface LeaderboardGame {
  readonly id: string;
  readonly boards: readonly ScoredBoard[];
}

/**
 * Tells the other instances, inside the transaction that changed them (so only once it commits),
 * that a player's entries in a game changed; their in-process engines then read them again.
 */
export type AnnounceChange = (trx: GameDb, gameId: string, playerId: string) => Promise<void>;

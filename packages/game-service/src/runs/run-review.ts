import type { GameDb } from '../database.js';
import { findRunById, listRuns, type RunPage } from './run-store.js';
import type { RunRecord } from './run-record.js';

// An operator's review of a flagged run, and the results a withdrawal recomputes entries from.
// The moderation feature calls these; the runs table stays this feature's.

/** What an operator decided about a flagged run: kept as it is, or rejected (its scores withdrawn). */
export type RunReview = 'kept' | 'rejected';
export const runReviews: readonly RunReview[] = ['kept', 'rejected'];

/** A run's result as it fed the boards. */
export interface RunResult {
  readonly runId: number;
  readonly adapterId: string;
  readonly result: Readonly<Record<string, number>>;
  readonly achievedAt: number;
}

/** Every result of a player's runs that scores (accepted or flagged), oldest first. */
export async function scoringResultsOfPlayer(db: GameDb, gameId: string, playerId: string): Promise<RunResult[]> {
  const rows = await db
    .selectFrom('runs')
    .select(['id', 'adapter_id', 'result', 'created_at'])
    .where('game_id', '=', gameId)
    .where('player_id', '=', playerId)
    .where('status', 'in', ['accepted', 'flagged'])
    .where('result', 'is not', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({ runId: row.id, adapterId: row.adapter_id, result: JSON.parse(row.result!) as Record<string, number>, achievedAt: Number(row.created_at) }));
}

/**
 * Records the review of a flagged run not reviewed yet; a rejected run becomes `rejected`, as if
 * refused (a resubmission of its runId answers 422 with `reason`). False when the run is not a
 * flagged run waiting for review (the caller checked; a concurrent review got there first).
 */
export async function reviewFlaggedRun(db: GameDb, gameId: string, id: number, review: RunReview, reason: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('runs')
    .set(review === 'rejected' ? { review, reviewed_at: now, status: 'rejected', rejection_reason: reason } : { review, reviewed_at: now })
    .where('game_id', '=', gameId)
    .where('id', '=', id)
    .where('status', '=', 'flagged')
    .where('review', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The game's run `id`, as the player page and a review read it. */
export function runOfGame(db: GameDb, gameId: string, id: number): Promise<RunRecord | undefined> {
  return findRunById(db, gameId, id);
}

/** A player's latest runs in a game, newest first (at most `limit`). */
export function latestRunsOfPlayer(db: GameDb, gameId: string, playerId: string, limit: number): Promise<RunPage> {
  return listRuns(db, { gameId, playerId, limit });
}

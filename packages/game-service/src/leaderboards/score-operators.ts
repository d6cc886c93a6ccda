import type { ScoreOperator } from './ranked-board.js';
import { sortScoreOf, sortSubscoreOf, type RankOrder } from './rank-order.js';
import type { EntryMetadata } from './leaderboard-store.js';

/**
 * A player's standing value on one (board, period); `subscore` is 0 on a board without one,
 * `metadata` what the board keeps of the run the value comes from (undefined: nothing).
 */
export interface ScoredResult {
  readonly score: number;
  readonly subscore: number;
  readonly achievedAt: number;
  readonly metadata?: EntryMetadata | undefined;
}

/**
 * Scores are IEEE doubles end to end (SQL `double precision`, Redis sorted-set scores), so
 * integers are exact within ±(2^53 − 1). Results outside that range are refused; sums saturate
 * at its ends rather than lose precision silently.
 */
export const maxScoreMagnitude = Number.MAX_SAFE_INTEGER;

/** Throws a RangeError for a score outside the supported range (an adapter bug, not user input). */
export function assertSupportedScore(score: number): void {
  if (!Number.isFinite(score) || Math.abs(score) > maxScoreMagnitude) {
    throw new RangeError(`score ${score} is outside the supported range ±${maxScoreMagnitude}`);
  }
}

function ranksBefore(set: RankOrder, a: ScoredResult, b: ScoredResult): boolean {
  if (a.score !== b.score) return sortScoreOf(set.order, a.score) < sortScoreOf(set.order, b.score);
  if (a.subscore !== b.subscore) return sortSubscoreOf(set, a.subscore) < sortSubscoreOf(set, b.subscore);
  return a.achievedAt < b.achievedAt;
}

/**
 * Applies a board's operator to a player's existing entry and a new result.
 * - `best` keeps whichever ranks first (better score, then better subscore, then the earlier
 *   time), with that result's subscore: the entry is one run's;
 * - `latest` keeps the most recently achieved result (its subscore too), so late-arriving older
 *   runs do not win;
 * - `sum` adds the scores, dated at the latest result, with that latest result's metadata (sum
 *   boards have no subscore: it stays 0).
 * `improved` says whether the entry now ranks before where it stood (always true for a first entry).
 */
export function applyOperator(
  operator: ScoreOperator,
  set: RankOrder,
  existing: ScoredResult | undefined,
  incoming: ScoredResult,
): { result: ScoredResult; improved: boolean } {
  if (!existing) return { result: incoming, improved: true };
  let result: ScoredResult;
  switch (operator) {
    case 'best':
      result = ranksBefore(set, incoming, existing) ? incoming : existing;
      break;
    case 'latest':
      result = incoming.achievedAt >= existing.achievedAt ? incoming : existing;
      break;
    case 'sum': {
      const sum = Math.min(maxScoreMagnitude, Math.max(-maxScoreMagnitude, existing.score + incoming.score));
      const later = incoming.achievedAt >= existing.achievedAt ? incoming : existing;
      result = { score: sum, subscore: 0, achievedAt: later.achievedAt, metadata: later.metadata };
      break;
    }
  }
  return { result, improved: ranksBefore(set, result, existing) };
}

/** True when two results hold the same values (score, subscore, time and metadata). */
export function sameResult(a: ScoredResult, b: ScoredResult): boolean {
  if (a.score !== b.score || a.subscore !== b.subscore || a.achievedAt !== b.achievedAt) return false;
  if (a.metadata === b.metadata) return true;
  return a.metadata !== undefined && b.metadata !== undefined && JSON.stringify(a.metadata) === JSON.stringify(b.metadata);
}

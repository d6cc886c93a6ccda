import type { ScoreOperator, SortOrder } from './ranked-board.js';

/** A player's standing value on one (board, period). */
export interface ScoredResult {
  readonly score: number;
  readonly achievedAt: number;
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

function ranksBefore(order: SortOrder, a: ScoredResult, b: ScoredResult): boolean {
  if (a.score !== b.score) return order === 'desc' ? a.score > b.score : a.score < b.score;
  return a.achievedAt < b.achievedAt;
}

/**
 * Applies a board's operator to a player's existing entry and a new result.
 * - `best` keeps whichever ranks first (better score, then the earlier time);
 * - `latest` keeps the most recently achieved result, so late-arriving older runs do not win;
 * - `sum` adds the scores, dated at the latest result.
 * `improved` says whether the entry now ranks before where it stood (always true for a first entry).
 */
export function applyOperator(
  operator: ScoreOperator,
  order: SortOrder,
  existing: ScoredResult | undefined,
  incoming: ScoredResult,
): { result: ScoredResult; improved: boolean } {
  if (!existing) return { result: incoming, improved: true };
  let result: ScoredResult;
  switch (operator) {
    case 'best':
      result = ranksBefore(order, incoming, existing) ? incoming : existing;
      break;
    case 'latest':
      result = incoming.achievedAt >= existing.achievedAt ? incoming : existing;
      break;
    case 'sum': {
      const sum = Math.min(maxScoreMagnitude, Math.max(-maxScoreMagnitude, existing.score + incoming.score));
      result = { score: sum, achievedAt: Math.max(existing.achievedAt, incoming.achievedAt) };
      break;
    }
  }
  return { result, improved: ranksBefore(order, result, existing) };
}

import type { Entry } from './leaderboard-store.js';
import type { SortOrder } from './ranked-board.js';

/**
 * An entry's position key: every board sorts ascending by (sortScore, achievedAt, playerId),
 * desc boards by negating the score. Earlier results win ties; the player id decides the rest
 * (compared by UTF-16 code units, which equals the byte order SQL and Redis use for ASCII ids).
 */
export interface RankKey {
  readonly sortScore: number;
  readonly achievedAt: number;
  readonly playerId: string;
}

/**
 * What the rank engine holds of an entry: its position and the name shown beside it, so the
 * engine answers `/me` and `/around-me` without reading SQL (the score is the key's, un-negated).
 */
export interface RankItem extends RankKey {
  readonly displayName: string;
}

/** A score as it sorts on a board of the given order, and back: negation is its own inverse. */
export function sortScoreOf(order: SortOrder, score: number): number {
  return order === 'desc' ? -score : score;
}

/** The rank key of a position (score as stored) on a board of the given order. */
export function rankKeyOf(order: SortOrder, position: { score: number; achievedAt: number; playerId: string }): RankKey {
  return { sortScore: sortScoreOf(order, position.score), achievedAt: position.achievedAt, playerId: position.playerId };
}

/** The rank item of an entry on a board of the given order. */
export function rankItemOf(order: SortOrder, entry: Entry): RankItem {
  // Written out rather than spread from rankKeyOf: a rebuild makes a million of these.
  return { sortScore: sortScoreOf(order, entry.score), achievedAt: entry.achievedAt, playerId: entry.playerId, displayName: entry.displayName };
}

/** Negative when `a` ranks before `b`, zero for the same position, positive after. */
export function compareRankKeys(a: RankKey, b: RankKey): number {
  if (a.sortScore !== b.sortScore) return a.sortScore < b.sortScore ? -1 : 1;
  if (a.achievedAt !== b.achievedAt) return a.achievedAt < b.achievedAt ? -1 : 1;
  if (a.playerId === b.playerId) return 0;
  return a.playerId < b.playerId ? -1 : 1;
}

import type { Entry } from './leaderboard-store.js';
import type { RankedSet, SortOrder } from './ranked-board.js';

/**
 * An entry's position key: every board sorts ascending by (sortScore, sortSubscore, achievedAt,
 * playerId), a desc score or subscore by negating it. A board without a subscore has 0 there
 * for every entry. Earlier results win what is still tied; the player id decides the rest
 * (compared by UTF-16 code units, which equals the byte order SQL and Redis use for ASCII ids).
 */
export interface RankKey {
  readonly sortScore: number;
  readonly sortSubscore: number;
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

/** The orders a set ranks by: its score's, and its subscore's when the board declares one. */
export type RankOrder = Pick<RankedSet, 'order' | 'subscoreOrder'>;

/** A position as it is stored: the score and subscore (0 without one) as the adapter gave them. */
export interface StoredPosition {
  readonly score: number;
  readonly subscore: number;
  readonly achievedAt: number;
  readonly playerId: string;
}

/** A score as it sorts on a board of the given order, and back: negation is its own inverse. */
export function sortScoreOf(order: SortOrder, score: number): number {
  // `0 - score` rather than `-score`, and `score + 0`: never -0 (a score of 0 read back from Redis on
  // a desc board would come out as -0, and answers must say 0).
  return order === 'desc' ? 0 - score : score + 0;
}

/** A subscore as it sorts (0 on a set without one), and back. */
export function sortSubscoreOf(set: RankOrder, subscore: number): number {
  // `0 - 0` rather than `-0`: Redis members and typed arrays keep no negative zero apart.
  return set.subscoreOrder === 'desc' ? 0 - subscore : subscore;
}

/** The rank key of a position (score and subscore as stored) on a set of the given orders. */
export function rankKeyOf(set: RankOrder, position: StoredPosition): RankKey {
  return {
    sortScore: sortScoreOf(set.order, position.score),
    sortSubscore: sortSubscoreOf(set, position.subscore),
    achievedAt: position.achievedAt,
    playerId: position.playerId,
  };
}

/** The rank item of an entry on a set of the given orders. */
export function rankItemOf(set: RankOrder, entry: Entry): RankItem {
  // Written out rather than spread from rankKeyOf: a rebuild makes a million of these.
  return {
    sortScore: sortScoreOf(set.order, entry.score),
    sortSubscore: sortSubscoreOf(set, entry.subscore),
    achievedAt: entry.achievedAt,
    playerId: entry.playerId,
    displayName: entry.displayName,
  };
}

/** Negative when `a` ranks before `b`, zero for the same position, positive after. */
export function compareRankKeys(a: RankKey, b: RankKey): number {
  if (a.sortScore !== b.sortScore) return a.sortScore < b.sortScore ? -1 : 1;
  if (a.sortSubscore !== b.sortSubscore) return a.sortSubscore < b.sortSubscore ? -1 : 1;
  if (a.achievedAt !== b.achievedAt) return a.achievedAt < b.achievedAt ? -1 : 1;
  if (a.playerId === b.playerId) return 0;
  return a.playerId < b.playerId ? -1 : 1;
}

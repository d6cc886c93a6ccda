import type { RankKey } from './rank-order.js';

/** Where a player stands in a ranked set, with the players around them. */
export interface Standing {
  /** Entries in the set. */
  readonly total: number;
  /** 1-based rank, or undefined when the player has no entry. */
  readonly rank: number | undefined;
  /** Rank of `window[0]`. */
  readonly windowFirstRank: number;
  /** Player ids from `rank - radius` to `rank + radius` (clipped to the set), in rank order. */
  readonly window: readonly string[];
}

/**
 * An order-statistic index over ranked sets (one per board and period), keyed by
 * `rankedSetId`. It holds positions only; entry details stay in SQL, the source of truth.
 * Rank-of-player and players-at-rank are O(log n).
 */
export interface RankEngine {
  readonly kind: 'in-process' | 'redis';
  /**
   * Replaces a set's contents with keys given in rank order (the rebuild from SQL).
   * `ttlMs`: how long a shared engine may keep the set before forgetting it by itself (until a
   * period's end plus grace, measured on the app's clock so tests that move time stay consistent).
   */
  replace(setId: string, keys: readonly RankKey[], ttlMs?: number): Promise<void>;
  /** Sets a player's position (insert or move). */
  upsert(setId: string, key: RankKey): Promise<void>;
  remove(setId: string, playerId: string): Promise<void>;
  /** The player's standing, with up to `radius` players either side (radius 0: none). */
  standing(setId: string, playerId: string, radius: number): Promise<Standing>;
  /** Up to `count` player ids from 1-based `fromRank`, in rank order. */
  playersFrom(setId: string, fromRank: number, count: number): Promise<string[]>;
  /** Forgets a set (an expired period: SQL answers for it from then on). */
  drop(setId: string): Promise<void>;
}

import type { Awaitable } from '../awaitable.js';
import type { RankItem, RankKey } from './rank-order.js';

/**
 * An item as an engine answers it: the name is unknown only in a shared set last written by a
 * version that kept no names (the reader then takes it from SQL).
 */
export type HeldItem = RankKey & { readonly displayName: string | undefined };

/** Where a player stands in a ranked set, with the players around them. */
export interface Standing {
  /** Entries in the set. */
  readonly total: number;
  /** 1-based rank, or undefined when the player has no entry. */
  readonly rank: number | undefined;
  /** Rank of `window[0]`. */
  readonly windowFirstRank: number;
  /** Entries from `rank - radius` to `rank + radius` (clipped to the set), in rank order. */
  readonly window: readonly HeldItem[];
}

/**
 * A shared engine's answer about a set it does not hold whole right now: lost (Redis restarted
 * empty, or from an older snapshot) or not rebuilt yet. SQL answers for it meanwhile.
 */
export const notHeld: unique symbol = Symbol('rank set not held');
export type NotHeld = typeof notHeld;

/** How a rebuild ended: done; not needed (another instance had rebuilt the set); or another instance is rebuilding it. */
export type RebuildOutcome = 'built' | 'held' | 'busy';

export interface ReplaceOptions {
  /**
   * How long a shared engine may keep the set before forgetting it by itself (until a period's
   * end plus grace, measured on the app's clock so tests that move time stay consistent).
   */
  ttlMs?: number | undefined;
  /** Rebuild only when the engine does not hold the set (after a loss), not when it is whole. */
  onlyIfLost?: boolean;
}

/**
 * An order-statistic index over ranked sets (one per board and period), keyed by
 * `rankedSetId`. It holds each entry's position and display name, a copy of SQL (the source of
 * truth) kept in step by `RankIndex`. Rank-of-player and entries-at-rank are O(log n).
 *
 * A shared engine (Redis) may lose sets or become unreachable: its reads then answer `notHeld`
 * or throw, its writes answer false or throw, and `RankIndex` answers from SQL meanwhile.
 */
export interface RankEngine {
  readonly kind: 'in-process' | 'redis';
  /** False while the engine cannot be used at all (Redis unreachable): SQL answers everything. */
  readonly usable: boolean;
  /**
   * Replaces a set's contents with the items of `batches` (the rebuild from SQL, a keyset read at
   * a time, in SQL's rank order). A shared engine lets one instance rebuild a set at a time and
   * keeps writes made during the rebuild (`upsert`, `remove`) over what the rebuild read.
   */
  replace(setId: string, batches: AsyncIterable<readonly RankItem[]>, options?: ReplaceOptions): Promise<RebuildOutcome>;
  /** Sets a player's position and name (insert, move or rename); false when the set is not held. In process: at once. */
  upsert(setId: string, item: RankItem): Awaitable<boolean>;
  /** False when the set is not held. In process: at once. */
  remove(setId: string, playerId: string): Awaitable<boolean>;
  /** The player's standing, with up to `radius` players either side (radius 0: none). */
  standing(setId: string, playerId: string, radius: number): Awaitable<Standing | NotHeld>;
  /** Up to `count` entries from 1-based `fromRank`, in rank order. */
  itemsFrom(setId: string, fromRank: number, count: number): Awaitable<HeldItem[] | NotHeld>;
  /**
   * Up to `count` entries ranked after `key` (from the top without one) and the rank of the
   * first; undefined when the engine cannot place `key` (Redis places only the key of an entry
   * still in the set, which is what a cursor usually names).
   */
  itemsAfter(setId: string, key: RankKey | undefined, count: number): Awaitable<{ firstRank: number; items: HeldItem[] } | undefined | NotHeld>;
  /** The items of those of `playerIds` with an entry in the set (any order, each once). */
  itemsOf(setId: string, playerIds: readonly string[]): Awaitable<HeldItem[] | NotHeld>;
  /** Which of these sets the engine holds whole (in the same order). */
  holds(setIds: readonly string[]): Promise<boolean[]>;
  /** Forgets a set (an expired period: SQL answers for it from then on). In process: at once. */
  drop(setId: string): Awaitable<void>;
}

import { createHash } from 'node:crypto';
import { ApiError } from '@playstack/server-kit';
import type { Entry, EntryPosition } from './leaderboard-store.js';
import type { RankedEntry } from './rank-index.js';
import { compareRankKeys, rankKeyOf } from './rank-order.js';
import type { SortOrder } from './ranked-board.js';
import './leaderboard-error-codes.js';

// A board of chosen players (a game's friend list): the entries of those players alone, ranked
// 1..n among themselves. The game supplies the players with each request; the service keeps no
// social graph.

/** Most player ids one request may name (the caller, always part of the set, comes on top). */
export const chosenPlayersMax = 100;

/** Player ids are the service's UUIDs (any version, lower or upper case). */
const playerIdPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The players of a friends' board: the ids named and the caller, each once, sorted; and their digest. */
export interface ChosenPlayers {
  readonly ids: readonly string[];
  /** Binds cursors to this set of players (the order ids were named in does not matter). */
  readonly digest: string;
}

/**
 * The set of players a request names (`players=a,b,...` in a query, or an array in a body) with
 * the caller added; 400 `invalid-players` for an id that is not a player id or more than
 * `chosenPlayersMax` ids.
 */
export function chosenPlayers(named: string | readonly string[], callerId: string): ChosenPlayers {
  const list = typeof named === 'string' ? (named === '' ? [] : named.split(',')) : named;
  if (list.length > chosenPlayersMax) throw new ApiError('invalid-players', `players: at most ${chosenPlayersMax} player ids, got ${list.length}.`);
  const bad = list.find((id) => !playerIdPattern.test(id));
  if (bad !== undefined) throw new ApiError('invalid-players', `players: ${JSON.stringify(bad.slice(0, 64))} is not a player id (a UUID).`);
  const ids = [...new Set([...list.map((id) => id.toLowerCase()), callerId])].sort();
  return { ids, digest: createHash('sha256').update(ids.join(',')).digest('base64url').slice(0, 16) };
}

/** The chosen players' entries in rank order, ranked 1..n among themselves. */
export function rankAmongThemselves(order: SortOrder, entries: readonly Entry[]): RankedEntry[] {
  const keyed = entries.map((entry) => ({ entry, key: rankKeyOf(order, entry) }));
  keyed.sort((a, b) => compareRankKeys(a.key, b.key));
  return keyed.map(({ entry }, i) => ({ playerId: entry.playerId, displayName: entry.displayName, score: entry.score, achievedAt: entry.achievedAt, rank: i + 1 }));
}

/** Up to `limit + 1` of the ranked entries after `after` (from the top without one): a page and whether more follow. */
export function rankedAfter(order: SortOrder, ranked: readonly RankedEntry[], after: EntryPosition | undefined, limit: number): RankedEntry[] {
  if (!after) return ranked.slice(0, limit + 1);
  const key = rankKeyOf(order, after);
  const from = ranked.findIndex((entry) => compareRankKeys(rankKeyOf(order, entry), key) > 0);
  return from === -1 ? [] : ranked.slice(from, from + limit + 1);
}

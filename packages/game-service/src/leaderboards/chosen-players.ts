import { hash } from 'node:crypto';
import { ApiError } from '@playstack/server-kit';
import type { Entry, EntryPosition } from './leaderboard-store.js';
import type { RankedEntry } from './rank-index.js';
import { compareRankKeys, rankKeyOf, type RankOrder } from './rank-order.js';
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
  // A query's list is lowered in one call (and split again only when that changed it).
  const lowered = typeof named === 'string' ? named.toLowerCase() : undefined;
  const ids = lowered === undefined ? list.map((id) => id.toLowerCase()) : lowered === named ? [...list] : lowered.split(',');
  ids.push(callerId);
  return new ChosenSet(sortedOnce(ids));
}

/** The digest is computed when first asked for: only reads that take or give a cursor need it. */
class ChosenSet implements ChosenPlayers {
  #digest: string | undefined;
  constructor(readonly ids: readonly string[]) {}
  get digest(): string {
    return (this.#digest ??= hash('sha256', this.ids.join(','), 'base64url').slice(0, 16));
  }
}

/** How many ids `sortedOnce` numbers within one sort key (more than a request holds: the named ids and the caller). */
const indexSpan = 128;

/**
 * The ids each once, in string order (what `[...new Set(ids)].sort()` answers, in about half
 * the time): sorted first as numbers, by the value of the first eight hex digits, which orders
 * lowercase UUIDs as their strings do, then put right by an insertion sort (a few comparisons
 * where those digits tie, for the same id named twice; more for a caller id that is not a UUID).
 */
function sortedOnce(ids: readonly string[]): string[] {
  if (ids.length > indexSpan) return [...new Set(ids)].sort();
  const keys = new Float64Array(ids.length);
  for (let i = 0; i < ids.length; i++) keys[i] = leadingValue(ids[i]!) * indexSpan + i;
  keys.sort();
  const sorted: string[] = [];
  for (const key of keys) {
    const id = ids[key % indexSpan]!;
    let at = sorted.length;
    while (at > 0 && sorted[at - 1]! > id) at--;
    if (at > 0 && sorted[at - 1] === id) continue;
    if (at === sorted.length) sorted.push(id);
    else sorted.splice(at, 0, id);
  }
  return sorted;
}

/** The value of a lowercase hex digit's char code, -1 for other char codes below 128. */
const hexValue = new Int8Array(128).fill(-1);
for (let digit = 0; digit < 16; digit++) hexValue[digit.toString(16).charCodeAt(0)] = digit;

/** The value of the id's first eight characters as lowercase hex digits (0 when they are not). */
function leadingValue(id: string): number {
  let value = 0;
  for (let i = 0; i < 8; i++) {
    const code = id.charCodeAt(i);
    const digit = code < 128 ? hexValue[code]! : -1;
    if (digit < 0) return 0;
    value = value * 16 + digit;
  }
  return value;
}

/** The chosen players' entries in rank order, ranked 1..n among themselves. */
export function rankAmongThemselves(set: RankOrder, entries: readonly Entry[]): RankedEntry[] {
  const keyed = entries.map((entry) => ({ entry, key: rankKeyOf(set, entry) }));
  keyed.sort((a, b) => compareRankKeys(a.key, b.key));
  return keyed.map(({ entry }, i) => ({ ...entry, rank: i + 1 }));
}

/** Up to `limit + 1` of the ranked entries after `after` (from the top without one): a page and whether more follow. */
export function rankedAfter(set: RankOrder, ranked: readonly RankedEntry[], after: EntryPosition | undefined, limit: number): RankedEntry[] {
  if (!after) return ranked.slice(0, limit + 1);
  const key = rankKeyOf(set, after);
  const from = ranked.findIndex((entry) => compareRankKeys(rankKeyOf(set, entry), key) > 0);
  return from === -1 ? [] : ranked.slice(from, from + limit + 1);
}

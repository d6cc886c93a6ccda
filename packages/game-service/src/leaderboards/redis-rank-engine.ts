import { randomBytes } from 'node:crypto';
import type { Redis, RedisHealth } from '@playstack/server-kit';
import { notHeld, type HeldItem, type NotHeld, type RankEngine, type RebuildOutcome, type ReplaceOptions, type Standing } from './rank-engine.js';
import type { RankItem, RankKey } from './rank-order.js';

/**
 * Sorted-set members carry the tie-break: with equal scores Redis orders members by bytes, so
 * the member starts with `achievedAt` as fixed-width decimal (earlier first), then the player id.
 * The score is the rank key's sortScore (desc boards negated), so ascending order is rank order.
 *
 * A sort subscore other than 0 comes first, as a sign mark and 16 hex digits of its double's
 * bits made to sort by bytes: `-` for a negative one sorts before the digits of a member
 * without one (subscore 0), `~` for a positive one after them. Boards without a subscore (every
 * subscore 0) keep exactly the members they had before subscores existed.
 */
const achievedAtDigits = 15;
const memberPlayerOffset = achievedAtDigits + 1;
const subscoreHexDigits = 16;
/** Where the player id starts in a member with a subscore: mark, hex digits, `:`, then as above. */
const subscoredPlayerOffset = 1 + subscoreHexDigits + 1 + memberPlayerOffset;
const negativeMark = '-';
const positiveMark = '~';
/** Entries per round trip when building or reading a set in bulk. */
const batchSize = 1_000;
/** How long the keys of a set being built may outlive a process that died building it. */
const buildTtlMs = 3_600_000;

const subscoreBits = new DataView(new ArrayBuffer(8));

/** 16 hex digits that sort by bytes as the double sorts (sign bit flipped for positives, every bit for negatives). */
function sortableHexOf(value: number): string {
  subscoreBits.setFloat64(0, value);
  let high = subscoreBits.getUint32(0);
  let low = subscoreBits.getUint32(4);
  if (high >>> 31) {
    high = ~high >>> 0;
    low = ~low >>> 0;
  } else {
    high = (high | 0x8000_0000) >>> 0;
  }
  return high.toString(16).padStart(8, '0') + low.toString(16).padStart(8, '0');
}

function valueOfSortableHex(hex: string): number {
  let high = Number.parseInt(hex.slice(0, 8), 16);
  let low = Number.parseInt(hex.slice(8, 16), 16);
  if (high >>> 31) {
    high = (high & 0x7fff_ffff) >>> 0;
  } else {
    high = ~high >>> 0;
    low = ~low >>> 0;
  }
  subscoreBits.setUint32(0, high);
  subscoreBits.setUint32(4, low);
  return subscoreBits.getFloat64(0);
}

function memberOf(item: RankKey): string {
  const plain = `${String(item.achievedAt).padStart(achievedAtDigits, '0')}:${item.playerId}`;
  if (item.sortSubscore === 0) return plain;
  return `${item.sortSubscore < 0 ? negativeMark : positiveMark}${sortableHexOf(item.sortSubscore)}:${plain}`;
}

/** The position a member holds besides its score: subscore, time and player. */
function parseMember(member: string): { sortSubscore: number; achievedAt: number; playerId: string } {
  const mark = member[0];
  if (mark !== negativeMark && mark !== positiveMark) {
    return { sortSubscore: 0, achievedAt: Number(member.slice(0, achievedAtDigits)), playerId: member.slice(memberPlayerOffset) };
  }
  const plainStart = 1 + subscoreHexDigits + 1;
  return {
    sortSubscore: valueOfSortableHex(member.slice(1, 1 + subscoreHexDigits)),
    achievedAt: Number(member.slice(plainStart, plainStart + achievedAtDigits)),
    playerId: member.slice(subscoredPlayerOffset),
  };
}

/** Lua: the player id of a member, with or without a subscore. */
const playerOfFunction = `
local function playerOf(member)
  local mark = string.sub(member, 1, 1)
  if mark == '${negativeMark}' or mark == '${positiveMark}' then return string.sub(member, ${subscoredPlayerOffset + 1}) end
  return string.sub(member, ${memberPlayerOffset + 1})
end`;

// Each set is a sorted set (positions), a hash (player -> member) and a hash (player -> display
// name), kept together by Lua scripts so a player never has two members; beside them:
// - `m`, the generation marker: the run_id of the Redis server process the set was built on. A
//   set is held (readable, writable) only while its marker equals the run_id of the server
//   answering, so a Redis restarted empty (no marker) or from an older snapshot (another run_id)
//   is noticed by the first script that touches the set;
// - `b`, the build lease: the token of the one instance rebuilding the set, expiring unless the
//   builder renews it; while it exists, writers apply their changes to the build keys (`bz`,
//   `bh`, `bn`) as well and note the player in `bt`, so the rebuild keeps those over what it read.
// The hash tag keeps every key of a set in one cluster slot.
const keySuffixes = ['z', 'h', 'n', 'm', 'b', 'bz', 'bh', 'bn', 'bt'] as const;
type SetKeys = [z: string, h: string, n: string, m: string, b: string, bz: string, bh: string, bn: string, bt: string];

// Writes: KEYS = SetKeys, ARGV[1] = generation, ARGV[2] = player. Returns 1 when the set is held.
const writeFunctions = `
local function put(z, h, n)
  local old = redis.call('HGET', h, ARGV[2])
  if old then redis.call('ZREM', z, old) end
  redis.call('ZADD', z, ARGV[3], ARGV[4])
  redis.call('HSET', h, ARGV[2], ARGV[4])
  redis.call('HSET', n, ARGV[2], ARGV[5])
end
local function take(z, h, n)
  local old = redis.call('HGET', h, ARGV[2])
  redis.call('HDEL', n, ARGV[2])
  if old then
    redis.call('ZREM', z, old)
    redis.call('HDEL', h, ARGV[2])
  end
end
local function write(apply)
  if redis.call('EXISTS', KEYS[5]) == 1 then
    apply(KEYS[6], KEYS[7], KEYS[8])
    redis.call('SADD', KEYS[9], ARGV[2])
  end
  if redis.call('GET', KEYS[4]) ~= ARGV[1] then return 0 end
  apply(KEYS[1], KEYS[2], KEYS[3])
  return 1
end`;

const upsertScript = `${writeFunctions}
return write(put)`;

const removeScript = `${writeFunctions}
return write(take)`;

// Reads: KEYS start with zset, ..., marker; ARGV[1] = generation. 'lost' when the set is not held.
// Members with scores from 0-based start to stop, and the names of their players.
const itemsFunction = `${playerOfFunction}
local function items(zset, names, start, stop)
  local scored = redis.call('ZRANGE', zset, start, stop, 'WITHSCORES')
  if #scored == 0 then return {scored, {}} end
  local players = {}
  for i = 1, #scored, 2 do players[#players + 1] = playerOf(scored[i]) end
  return {scored, redis.call('HMGET', names, unpack(players))}
end`;

// KEYS: z h n m. ARGV: generation, player, radius.
const standingScript = `${itemsFunction}
if redis.call('GET', KEYS[4]) ~= ARGV[1] then return 'lost' end
local total = redis.call('ZCARD', KEYS[1])
local member = redis.call('HGET', KEYS[2], ARGV[2])
if not member then return {total} end
local rank = redis.call('ZRANK', KEYS[1], member)
local radius = tonumber(ARGV[3])
local first = rank - radius
if first < 0 then first = 0 end
local window = items(KEYS[1], KEYS[3], first, rank + radius)
return {total, rank, first, window[1], window[2]}`;

// KEYS: z n m. ARGV: generation, start, stop.
const itemsScript = `${itemsFunction}
if redis.call('GET', KEYS[3]) ~= ARGV[1] then return 'lost' end
return items(KEYS[1], KEYS[2], tonumber(ARGV[2]), tonumber(ARGV[3]))`;

// KEYS: z n m. ARGV: generation, score, member, count. From the top, or after a member that
// still holds the given score (else false: cannot place it).
const itemsAfterScript = `${itemsFunction}
if redis.call('GET', KEYS[3]) ~= ARGV[1] then return 'lost' end
local start = 0
if ARGV[3] ~= '' then
  local score = redis.call('ZSCORE', KEYS[1], ARGV[3])
  if not score or tonumber(score) ~= tonumber(ARGV[2]) then return false end
  start = redis.call('ZRANK', KEYS[1], ARGV[3]) + 1
end
local window = items(KEYS[1], KEYS[2], start, start + tonumber(ARGV[4]) - 1)
return {start, window[1], window[2]}`;

// KEYS: z h n m. ARGV: generation, then players. The members and scores of those with an entry,
// and their names.
const itemsOfScript = `
if redis.call('GET', KEYS[4]) ~= ARGV[1] then return 'lost' end
local scored, players = {}, {}
for i = 2, #ARGV do
  local member = redis.call('HGET', KEYS[2], ARGV[i])
  if member then
    local score = redis.call('ZSCORE', KEYS[1], member)
    if score then
      scored[#scored + 1] = member
      scored[#scored + 1] = score
      players[#players + 1] = ARGV[i]
    end
  end
end
if #players == 0 then return {scored, {}} end
return {scored, redis.call('HMGET', KEYS[3], unpack(players))}`;

// KEYS: SetKeys. ARGV: generation, token, lease ms, '1' to rebuild only a set not held.
// Takes the build lease and clears what an abandoned build left.
const claimScript = `
if ARGV[4] == '1' and redis.call('GET', KEYS[4]) == ARGV[1] then return 'held' end
if not redis.call('SET', KEYS[5], ARGV[2], 'NX', 'PX', ARGV[3]) then return 'busy' end
redis.call('DEL', KEYS[6], KEYS[7], KEYS[8], KEYS[9])
return 'claimed'`;

// KEYS: b bz bh bn bt. ARGV: token, lease ms, build ttl ms, n, then n (score, member) pairs, n
// (player, member) pairs and n (player, name) pairs. Adds what the rebuild read, except players
// written since it began (bulk commands: a rebuild writes millions of entries); renews the lease.
// A player read twice is left with two members here (the hash keeps the later one):
// \`leaderboardPrune\` removes the other before the swap.
const buildScript = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
local n = tonumber(ARGV[4])
local scores, members, names = 5, 5 + 2 * n, 5 + 4 * n
if n > 0 and redis.call('SCARD', KEYS[5]) == 0 then
  redis.call('ZADD', KEYS[2], unpack(ARGV, scores, members - 1))
  redis.call('HSET', KEYS[3], unpack(ARGV, members, names - 1))
  redis.call('HSET', KEYS[4], unpack(ARGV, names, names + 2 * n - 1))
elseif n > 0 then
  local z, h, d = {}, {}, {}
  for i = 0, n - 1 do
    local player = ARGV[members + 2 * i]
    if redis.call('SISMEMBER', KEYS[5], player) == 0 then
      z[#z + 1] = ARGV[scores + 2 * i]
      z[#z + 1] = ARGV[scores + 2 * i + 1]
      h[#h + 1] = player
      h[#h + 1] = ARGV[members + 2 * i + 1]
      d[#d + 1] = player
      d[#d + 1] = ARGV[names + 2 * i + 1]
    end
  end
  if #z > 0 then
    redis.call('ZADD', KEYS[2], unpack(z))
    redis.call('HSET', KEYS[3], unpack(h))
    redis.call('HSET', KEYS[4], unpack(d))
  end
end
for j = 2, 5 do redis.call('PEXPIRE', KEYS[j], ARGV[3]) end
return 1`;

// KEYS: bz bh. ARGV: members... Removes those the hash no longer names (a player read twice).
const pruneScript = `${playerOfFunction}
local stale = {}
for i = 1, #ARGV do
  local member = ARGV[i]
  if redis.call('HGET', KEYS[2], playerOf(member)) ~= member then stale[#stale + 1] = member end
end
if #stale > 0 then redis.call('ZREM', KEYS[1], unpack(stale)) end
return #stale`;

// KEYS: SetKeys. ARGV: generation, token, ttl ms ('' for none). Swaps the build in, marks the
// set held for this generation and releases the lease.
const finishScript = `
if redis.call('GET', KEYS[5]) ~= ARGV[2] then return 0 end
for j = 1, 3 do
  if redis.call('EXISTS', KEYS[j + 5]) == 1 then redis.call('RENAME', KEYS[j + 5], KEYS[j]) else redis.call('DEL', KEYS[j]) end
end
redis.call('SET', KEYS[4], ARGV[1])
for j = 1, 4 do
  if ARGV[3] == '' then redis.call('PERSIST', KEYS[j]) else redis.call('PEXPIRE', KEYS[j], ARGV[3]) end
end
redis.call('DEL', KEYS[5], KEYS[9])
return 1`;

// KEYS: b. ARGV: token. Gives a failed build's lease back, if it is still this build's.
const releaseScript = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])`;

type ScoredMembers = string[];
type Names = Array<string | null>;
type Lost = 'lost';

interface RankScripts {
  leaderboardUpsert(...args: [...SetKeys, generation: string, playerId: string, score: string, member: string, displayName: string]): Promise<number>;
  leaderboardRemove(...args: [...SetKeys, generation: string, playerId: string]): Promise<number>;
  leaderboardStanding(z: string, h: string, n: string, m: string, generation: string, playerId: string, radius: number): Promise<[number, number?, number?, ScoredMembers?, Names?] | Lost>;
  leaderboardItems(z: string, n: string, m: string, generation: string, start: number, stop: number): Promise<[ScoredMembers, Names] | Lost>;
  leaderboardItemsAfter(z: string, n: string, m: string, generation: string, score: string, member: string, count: number): Promise<[number, ScoredMembers, Names] | null | Lost>;
  leaderboardItemsOf(z: string, h: string, n: string, m: string, generation: string, ...playerIds: string[]): Promise<[ScoredMembers, Names] | Lost>;
  leaderboardClaim(...args: [...SetKeys, generation: string, token: string, leaseMs: number, onlyIfLost: string]): Promise<'held' | 'busy' | 'claimed'>;
  leaderboardBuild(b: string, bz: string, bh: string, bn: string, bt: string, token: string, leaseMs: number, buildTtlMs: number, count: number, ...pairs: string[]): Promise<number>;
  leaderboardFinish(...args: [...SetKeys, generation: string, token: string, ttlMs: string]): Promise<number>;
  leaderboardRelease(b: string, token: string): Promise<number>;
  leaderboardPrune(bz: string, bh: string, ...members: string[]): Promise<number>;
}

/** Items from ZRANGE WITHSCORES (`[member, score, ...]`) and the names HMGET found for them. */
function heldItems(scored: ScoredMembers, names: Names): HeldItem[] {
  const items: HeldItem[] = [];
  for (let i = 0; i < scored.length; i += 2) {
    const { sortSubscore, achievedAt, playerId } = parseMember(scored[i]!);
    items.push({ sortScore: Number(scored[i + 1]), sortSubscore, achievedAt, playerId, displayName: names[i / 2] ?? undefined });
  }
  return items;
}

/** How long a rebuild's lease lasts unless renewed (each batch renews it): a builder that died frees the set within it. */
const buildLeaseMs = 10_000;

/**
 * The shared rank engine: Redis sorted sets, so every instance reads the same ranks. Every call
 * that fails tells `RedisHealth` (which takes Redis out of use on an outage) and throws; a set
 * Redis does not hold whole answers `notHeld`.
 */
export class RedisRankEngine implements RankEngine {
  readonly kind = 'redis' as const;
  readonly #redis: Redis & RankScripts;
  readonly #health: RedisHealth;

  constructor(health: RedisHealth) {
    const redis = health.redis;
    redis.defineCommand('leaderboardUpsert', { numberOfKeys: keySuffixes.length, lua: upsertScript });
    redis.defineCommand('leaderboardRemove', { numberOfKeys: keySuffixes.length, lua: removeScript });
    redis.defineCommand('leaderboardStanding', { numberOfKeys: 4, lua: standingScript });
    redis.defineCommand('leaderboardItems', { numberOfKeys: 3, lua: itemsScript });
    redis.defineCommand('leaderboardItemsAfter', { numberOfKeys: 3, lua: itemsAfterScript });
    redis.defineCommand('leaderboardItemsOf', { numberOfKeys: 4, lua: itemsOfScript });
    redis.defineCommand('leaderboardClaim', { numberOfKeys: keySuffixes.length, lua: claimScript });
    redis.defineCommand('leaderboardBuild', { numberOfKeys: 5, lua: buildScript });
    redis.defineCommand('leaderboardFinish', { numberOfKeys: keySuffixes.length, lua: finishScript });
    redis.defineCommand('leaderboardRelease', { numberOfKeys: 1, lua: releaseScript });
    redis.defineCommand('leaderboardPrune', { numberOfKeys: 2, lua: pruneScript });
    this.#redis = redis as Redis & RankScripts;
    this.#health = health;
  }

  get usable(): boolean {
    return this.#health.usable;
  }

  #keys(setId: string): SetKeys {
    return keySuffixes.map((suffix) => `lb:{${setId}}:${suffix}`) as SetKeys;
  }

  /** The generation sets must carry to be held: the run_id of the Redis server answering. */
  get #generation(): string {
    return this.#health.serverId;
  }

  /** Runs Redis calls, telling RedisHealth when they fail (the caller then answers from SQL). */
  async #call<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      this.#health.failed('leaderboards', error);
      throw error;
    }
  }

  /**
   * Rebuilds a set under a lease, so instances never rebuild one set at once: another instance
   * holding the lease answers 'busy'. The rebuild goes into build keys beside the live set
   * (which goes on answering if it is whole), writers made meanwhile go into both and win over
   * what the rebuild read, and the build is swapped in and marked with the generation at the end.
   * A player read twice (an entry that moved between two keyset reads) keeps its later read.
   */
  async replace(setId: string, batches: AsyncIterable<readonly RankItem[]>, options: ReplaceOptions = {}): Promise<RebuildOutcome> {
    const keys = this.#keys(setId);
    const [, , , , lease, ...build] = keys;
    const token = randomBytes(8).toString('hex');
    const generation = this.#generation;
    const claim = await this.#call(() => this.#redis.leaderboardClaim(...keys, generation, token, buildLeaseMs, options.onlyIfLost ? '1' : '0'));
    if (claim !== 'claimed') return claim;
    try {
      for await (const items of batches) {
        for (let start = 0; start < items.length; start += batchSize) {
          const batch = items.slice(start, start + batchSize);
          const scored: string[] = [];
          const members: string[] = [];
          const names: string[] = [];
          for (const item of batch) {
            const member = memberOf(item);
            scored.push(String(item.sortScore), member);
            members.push(item.playerId, member);
            names.push(item.playerId, item.displayName);
          }
          const renewed = await this.#call(() =>
            this.#redis.leaderboardBuild(lease, ...(build as [string, string, string, string]), token, buildLeaseMs, buildTtlMs, batch.length, ...scored, ...members, ...names),
          );
          // The lease expired (this build stalled past it) and another instance took the set over.
          if (!renewed) return 'busy';
        }
      }
      await this.#call(() => this.#dropRepeatedPlayers(build[0]!, build[1]!));
      const ttl = options.ttlMs === undefined ? '' : String(Math.max(1, Math.round(options.ttlMs)));
      return (await this.#call(() => this.#redis.leaderboardFinish(...keys, generation, token, ttl))) ? 'built' : 'busy';
    } catch (error) {
      // Free the set for the next attempt at once rather than when the lease expires.
      await this.#redis.leaderboardRelease(lease, token).catch(() => undefined);
      throw error;
    }
  }

  /**
   * A player read twice has two members in the sorted set and one (the later) in the hash: the
   * counts differ only then, and the members the hash no longer names are removed.
   */
  async #dropRepeatedPlayers(zset: string, hash: string): Promise<void> {
    const [[, members], [, players]] = (await this.#redis.pipeline().zcard(zset).hlen(hash).exec()) as [[null, number], [null, number]];
    if (members === players) return;
    let cursor = '0';
    do {
      const [next, page] = await this.#redis.zscan(zset, cursor, 'COUNT', batchSize);
      cursor = next;
      const scanned = page.filter((_, i) => i % 2 === 0);
      if (scanned.length > 0) await this.#redis.leaderboardPrune(zset, hash, ...scanned);
    } while (cursor !== '0');
  }

  upsert(setId: string, item: RankItem): Promise<boolean> {
    return this.#call(async () => (await this.#redis.leaderboardUpsert(...this.#keys(setId), this.#generation, item.playerId, String(item.sortScore), memberOf(item), item.displayName)) === 1);
  }

  remove(setId: string, playerId: string): Promise<boolean> {
    return this.#call(async () => (await this.#redis.leaderboardRemove(...this.#keys(setId), this.#generation, playerId)) === 1);
  }

  standing(setId: string, playerId: string, radius: number): Promise<Standing | NotHeld> {
    return this.#call(async () => {
      const [z, h, n, m] = this.#keys(setId);
      const found = await this.#redis.leaderboardStanding(z, h, n, m, this.#generation, playerId, radius);
      if (found === 'lost') return notHeld;
      const [total, rank, first, scored, names] = found;
      if (rank === undefined || first === undefined || scored === undefined || names === undefined) {
        return { total, rank: undefined, windowFirstRank: 1, window: [] };
      }
      return { total, rank: rank + 1, windowFirstRank: first + 1, window: heldItems(scored, names) };
    });
  }

  itemsFrom(setId: string, fromRank: number, count: number): Promise<HeldItem[] | NotHeld> {
    return this.#call(async () => {
      const [z, , n, m] = this.#keys(setId);
      const items: HeldItem[] = [];
      // In slices: a script unpacks one HMGET argument per player, and Lua's stack is finite.
      for (let start = Math.max(1, fromRank) - 1, end = start + count; start < end; start += batchSize) {
        const found = await this.#redis.leaderboardItems(z, n, m, this.#generation, start, Math.min(start + batchSize, end) - 1);
        if (found === 'lost') return notHeld;
        const [scored, names] = found;
        items.push(...heldItems(scored, names));
        if (scored.length < 2 * batchSize) break;
      }
      return items;
    });
  }

  itemsAfter(setId: string, key: RankKey | undefined, count: number): Promise<{ firstRank: number; items: HeldItem[] } | undefined | NotHeld> {
    return this.#call(async () => {
      const [z, , n, m] = this.#keys(setId);
      const found = await this.#redis.leaderboardItemsAfter(z, n, m, this.#generation, key ? String(key.sortScore) : '', key ? memberOf(key) : '', count);
      if (found === 'lost') return notHeld;
      if (!found) return undefined;
      const [start, scored, named] = found;
      return { firstRank: start + 1, items: heldItems(scored, named) };
    });
  }

  itemsOf(setId: string, playerIds: readonly string[]): Promise<HeldItem[] | NotHeld> {
    return this.#call(async () => {
      const [z, h, n, m] = this.#keys(setId);
      // Callers ask for at most a few hundred players: one script call unpacks them all.
      const found = await this.#redis.leaderboardItemsOf(z, h, n, m, this.#generation, ...playerIds);
      if (found === 'lost') return notHeld;
      return heldItems(...found);
    });
  }

  holds(setIds: readonly string[]): Promise<boolean[]> {
    return this.#call(async () => {
      if (setIds.length === 0) return [];
      const markers = await this.#redis.mget(...setIds.map((id) => this.#keys(id)[3]));
      return markers.map((marker) => marker === this.#generation);
    });
  }

  drop(setId: string): Promise<void> {
    return this.#call(async () => {
      await this.#redis.del(...this.#keys(setId));
    });
  }
}

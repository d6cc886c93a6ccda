import { randomBytes } from 'node:crypto';
import type { Redis } from '@playstack/server-kit';
import type { HeldItem, RankEngine, Standing } from './rank-engine.js';
import type { RankItem, RankKey } from './rank-order.js';

/**
 * Sorted-set members carry the tie-break: with equal scores Redis orders members by bytes, so
 * the member starts with `achievedAt` as fixed-width decimal (earlier first), then the player id.
 * The score is the rank key's sortScore (desc boards negated), so ascending order is rank order.
 */
const achievedAtDigits = 15;
const memberPlayerOffset = achievedAtDigits + 1;
/** Entries per round trip when building or reading a set in bulk. */
const batchSize = 1_000;
/** How long a set being built may outlive a process that died building it. */
const buildTtlMs = 3_600_000;

function memberOf(item: RankKey): string {
  return `${String(item.achievedAt).padStart(achievedAtDigits, '0')}:${item.playerId}`;
}

// Each set is a sorted set (positions), a hash (player -> member) and a hash (player -> display
// name), kept together by Lua scripts so a player never has two members. The hash tag keeps the
// three keys in one cluster slot.
const upsertScript = `
local old = redis.call('HGET', KEYS[2], ARGV[1])
if old then redis.call('ZREM', KEYS[1], old) end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[4])
return 1`;

const removeScript = `
local old = redis.call('HGET', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
if not old then return 0 end
redis.call('ZREM', KEYS[1], old)
redis.call('HDEL', KEYS[2], ARGV[1])
return 1`;

// Members with scores from 0-based start to stop, and the names of their players.
const itemsFunction = `
local function items(zset, names, start, stop)
  local scored = redis.call('ZRANGE', zset, start, stop, 'WITHSCORES')
  if #scored == 0 then return {scored, {}} end
  local players = {}
  for i = 1, #scored, 2 do players[#players + 1] = string.sub(scored[i], ${memberPlayerOffset + 1}) end
  return {scored, redis.call('HMGET', names, unpack(players))}
end`;

const standingScript = `${itemsFunction}
local total = redis.call('ZCARD', KEYS[1])
local member = redis.call('HGET', KEYS[2], ARGV[1])
if not member then return {total} end
local rank = redis.call('ZRANK', KEYS[1], member)
local radius = tonumber(ARGV[2])
local first = rank - radius
if first < 0 then first = 0 end
local window = items(KEYS[1], KEYS[3], first, rank + radius)
return {total, rank, first, window[1], window[2]}`;

const itemsScript = `${itemsFunction}
return items(KEYS[1], KEYS[2], tonumber(ARGV[1]), tonumber(ARGV[2]))`;

// From the top, or after a member that still holds the given score (else false: cannot place it).
const itemsAfterScript = `${itemsFunction}
local start = 0
if ARGV[2] ~= '' then
  local score = redis.call('ZSCORE', KEYS[1], ARGV[2])
  if not score or tonumber(score) ~= tonumber(ARGV[1]) then return false end
  start = redis.call('ZRANK', KEYS[1], ARGV[2]) + 1
end
local window = items(KEYS[1], KEYS[2], start, start + tonumber(ARGV[3]) - 1)
return {start, window[1], window[2]}`;

type ScoredMembers = string[];
type Names = Array<string | null>;

interface RankScripts {
  leaderboardUpsert(zset: string, hash: string, names: string, playerId: string, score: string, member: string, displayName: string): Promise<number>;
  leaderboardRemove(zset: string, hash: string, names: string, playerId: string): Promise<number>;
  leaderboardStanding(zset: string, hash: string, names: string, playerId: string, radius: number): Promise<[number, number?, number?, ScoredMembers?, Names?]>;
  leaderboardItems(zset: string, names: string, start: number, stop: number): Promise<[ScoredMembers, Names]>;
  leaderboardItemsAfter(zset: string, names: string, score: string, member: string, count: number): Promise<[number, ScoredMembers, Names] | null>;
}

/** Items from ZRANGE WITHSCORES (`[member, score, ...]`) and the names HMGET found for them. */
function heldItems(scored: ScoredMembers, names: Names): HeldItem[] {
  const items: HeldItem[] = [];
  for (let i = 0; i < scored.length; i += 2) {
    const member = scored[i]!;
    items.push({
      sortScore: Number(scored[i + 1]),
      achievedAt: Number(member.slice(0, achievedAtDigits)),
      playerId: member.slice(memberPlayerOffset),
      displayName: names[i / 2] ?? undefined,
    });
  }
  return items;
}

/** The shared rank engine: Redis sorted sets, so every instance reads the same ranks. */
export class RedisRankEngine implements RankEngine {
  readonly kind = 'redis' as const;
  readonly #redis: Redis & RankScripts;

  constructor(redis: Redis) {
    redis.defineCommand('leaderboardUpsert', { numberOfKeys: 3, lua: upsertScript });
    redis.defineCommand('leaderboardRemove', { numberOfKeys: 3, lua: removeScript });
    redis.defineCommand('leaderboardStanding', { numberOfKeys: 3, lua: standingScript });
    redis.defineCommand('leaderboardItems', { numberOfKeys: 2, lua: itemsScript });
    redis.defineCommand('leaderboardItemsAfter', { numberOfKeys: 2, lua: itemsAfterScript });
    this.#redis = redis as Redis & RankScripts;
  }

  #keys(setId: string): [zset: string, hash: string, names: string] {
    return [`lb:{${setId}}:z`, `lb:{${setId}}:h`, `lb:{${setId}}:n`];
  }

  /**
   * Builds the set beside the live one and swaps it in with RENAME, so readers never see it
   * half-built. Each build has keys of its own (instances booting together each build a whole
   * set, and the last swap wins), which expire if the build is abandoned and are deleted if it
   * fails. A player read twice (an entry that moved between two keyset reads) keeps only its
   * later position, as `upsert` would.
   */
  async replace(setId: string, batches: AsyncIterable<readonly RankItem[]>, ttlMs?: number): Promise<void> {
    const live = this.#keys(setId);
    const buildId = randomBytes(8).toString('hex');
    const build = live.map((key) => `${key}:build:${buildId}`) as typeof live;
    try {
      let written = 0;
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
          const pipeline = this.#redis.pipeline().zadd(build[0], ...scored).hset(build[1], ...members).hset(build[2], ...names);
          if (written === 0) for (const key of build) pipeline.pexpire(key, buildTtlMs);
          await pipeline.exec();
          written += batch.length;
        }
      }
      if (written > 0) await this.#dropRepeatedPlayers(build);
      const swap = this.#redis.multi();
      if (written === 0) {
        swap.del(...live);
      } else {
        build.forEach((key, i) => {
          if (ttlMs === undefined) swap.persist(key);
          else swap.pexpire(key, ttlMs);
          swap.rename(key, live[i]!);
        });
      }
      await swap.exec();
    } catch (error) {
      await this.#redis.del(...build).catch(() => undefined);
      throw error;
    }
  }

  /**
   * A player read twice has two members in the sorted set and one (the later) in the hash: the
   * counts differ only then, and the members the hash no longer names are removed.
   */
  async #dropRepeatedPlayers([zset, hash]: [string, string, string]): Promise<void> {
    const [[, members], [, players]] = (await this.#redis.pipeline().zcard(zset).hlen(hash).exec()) as [[null, number], [null, number]];
    if (members === players) return;
    let cursor = '0';
    do {
      const [next, page] = await this.#redis.zscan(zset, cursor, 'COUNT', batchSize);
      cursor = next;
      const scanned = page.filter((_, i) => i % 2 === 0);
      if (scanned.length === 0) continue;
      const current = await this.#redis.hmget(hash, ...scanned.map((member) => member.slice(memberPlayerOffset)));
      const stale = scanned.filter((member, i) => current[i] !== member);
      if (stale.length > 0) await this.#redis.zrem(zset, ...stale);
    } while (cursor !== '0');
  }

  async upsert(setId: string, item: RankItem): Promise<void> {
    await this.#redis.leaderboardUpsert(...this.#keys(setId), item.playerId, String(item.sortScore), memberOf(item), item.displayName);
  }

  async remove(setId: string, playerId: string): Promise<void> {
    await this.#redis.leaderboardRemove(...this.#keys(setId), playerId);
  }

  async standing(setId: string, playerId: string, radius: number): Promise<Standing> {
    const [total, rank, first, scored, names] = await this.#redis.leaderboardStanding(...this.#keys(setId), playerId, radius);
    if (rank === undefined || first === undefined || scored === undefined || names === undefined) {
      return { total, rank: undefined, windowFirstRank: 1, window: [] };
    }
    return { total, rank: rank + 1, windowFirstRank: first + 1, window: heldItems(scored, names) };
  }

  async itemsFrom(setId: string, fromRank: number, count: number): Promise<HeldItem[]> {
    const [zset, , names] = this.#keys(setId);
    const items: HeldItem[] = [];
    // In slices: a script unpacks one HMGET argument per player, and Lua's stack is finite.
    for (let start = Math.max(1, fromRank) - 1, end = start + count; start < end; start += batchSize) {
      const [scored, found] = await this.#redis.leaderboardItems(zset, names, start, Math.min(start + batchSize, end) - 1);
      items.push(...heldItems(scored, found));
      if (scored.length < 2 * batchSize) break;
    }
    return items;
  }

  async itemsAfter(setId: string, key: RankKey | undefined, count: number): Promise<{ firstRank: number; items: HeldItem[] } | undefined> {
    const [zset, , names] = this.#keys(setId);
    const found = await this.#redis.leaderboardItemsAfter(zset, names, key ? String(key.sortScore) : '', key ? memberOf(key) : '', count);
    if (!found) return undefined;
    const [start, scored, named] = found;
    return { firstRank: start + 1, items: heldItems(scored, named) };
  }

  async drop(setId: string): Promise<void> {
    await this.#redis.del(...this.#keys(setId));
  }
}

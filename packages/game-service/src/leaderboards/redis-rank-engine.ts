import type { Redis } from '@playstack/server-kit';
import type { RankEngine, Standing } from './rank-engine.js';
import type { RankKey } from './rank-order.js';

/**
 * Sorted-set members carry the tie-break: with equal scores Redis orders members by bytes, so
 * the member starts with `achievedAt` as fixed-width decimal (earlier first), then the player id.
 * The score is the rank key's sortScore (desc boards negated), so ascending order is rank order.
 */
const achievedAtDigits = 15;
const memberPlayerOffset = achievedAtDigits + 1;
const rebuildBatchSize = 1_000;

function memberOf(key: RankKey): string {
  return `${String(key.achievedAt).padStart(achievedAtDigits, '0')}:${key.playerId}`;
}

function playerOfMember(member: string): string {
  return member.slice(memberPlayerOffset);
}

// Each set is a sorted set (positions) and a hash (player -> member), kept together by Lua
// scripts so a player never has two members. The hash tag keeps both keys in one cluster slot.
const upsertScript = `
local old = redis.call('HGET', KEYS[2], ARGV[1])
if old then redis.call('ZREM', KEYS[1], old) end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
return 1`;

const removeScript = `
local old = redis.call('HGET', KEYS[2], ARGV[1])
if not old then return 0 end
redis.call('ZREM', KEYS[1], old)
redis.call('HDEL', KEYS[2], ARGV[1])
return 1`;

const standingScript = `
local total = redis.call('ZCARD', KEYS[1])
local member = redis.call('HGET', KEYS[2], ARGV[1])
if not member then return {total} end
local rank = redis.call('ZRANK', KEYS[1], member)
local radius = tonumber(ARGV[2])
local first = rank - radius
if first < 0 then first = 0 end
return {total, rank, first, redis.call('ZRANGE', KEYS[1], first, rank + radius)}`;

interface RankScripts {
  leaderboardUpsert(zset: string, hash: string, playerId: string, score: string, member: string): Promise<number>;
  leaderboardRemove(zset: string, hash: string, playerId: string): Promise<number>;
  leaderboardStanding(zset: string, hash: string, playerId: string, radius: number): Promise<[number, number?, number?, string[]?]>;
}

/** The shared rank engine: Redis sorted sets, so every instance reads the same ranks. */
export class RedisRankEngine implements RankEngine {
  readonly kind = 'redis' as const;
  readonly #redis: Redis & RankScripts;

  constructor(redis: Redis) {
    redis.defineCommand('leaderboardUpsert', { numberOfKeys: 2, lua: upsertScript });
    redis.defineCommand('leaderboardRemove', { numberOfKeys: 2, lua: removeScript });
    redis.defineCommand('leaderboardStanding', { numberOfKeys: 2, lua: standingScript });
    this.#redis = redis as Redis & RankScripts;
  }

  #keys(setId: string): [zset: string, hash: string] {
    return [`lb:{${setId}}:z`, `lb:{${setId}}:h`];
  }

  /** Builds the set beside the live one and swaps it in with RENAME, so readers never see it half-built. */
  async replace(setId: string, keys: readonly RankKey[], ttlMs?: number): Promise<void> {
    const [zset, hash] = this.#keys(setId);
    const [buildZset, buildHash] = [`${zset}:build`, `${hash}:build`];
    await this.#redis.del(buildZset, buildHash);
    for (let start = 0; start < keys.length; start += rebuildBatchSize) {
      const batch = keys.slice(start, start + rebuildBatchSize);
      const scored: string[] = [];
      const members: string[] = [];
      for (const key of batch) {
        const member = memberOf(key);
        scored.push(String(key.sortScore), member);
        members.push(key.playerId, member);
      }
      await this.#redis.pipeline().zadd(buildZset, ...scored).hset(buildHash, ...members).exec();
    }
    const swap = this.#redis.multi();
    if (keys.length === 0) {
      swap.del(zset, hash);
    } else {
      if (ttlMs !== undefined) swap.pexpire(buildZset, ttlMs).pexpire(buildHash, ttlMs);
      swap.rename(buildZset, zset).rename(buildHash, hash);
    }
    await swap.exec();
  }

  async upsert(setId: string, key: RankKey): Promise<void> {
    const [zset, hash] = this.#keys(setId);
    await this.#redis.leaderboardUpsert(zset, hash, key.playerId, String(key.sortScore), memberOf(key));
  }

  async remove(setId: string, playerId: string): Promise<void> {
    const [zset, hash] = this.#keys(setId);
    await this.#redis.leaderboardRemove(zset, hash, playerId);
  }

  async standing(setId: string, playerId: string, radius: number): Promise<Standing> {
    const [zset, hash] = this.#keys(setId);
    const [total, rank, first, members] = await this.#redis.leaderboardStanding(zset, hash, playerId, radius);
    if (rank === undefined || first === undefined || members === undefined) {
      return { total, rank: undefined, windowFirstRank: 1, window: [] };
    }
    return { total, rank: rank + 1, windowFirstRank: first + 1, window: members.map(playerOfMember) };
  }

  async playersFrom(setId: string, fromRank: number, count: number): Promise<string[]> {
    if (count <= 0) return [];
    const [zset] = this.#keys(setId);
    const start = Math.max(1, fromRank) - 1;
    const members = await this.#redis.zrange(zset, start, start + count - 1);
    return members.map(playerOfMember);
  }

  async drop(setId: string): Promise<void> {
    await this.#redis.del(...this.#keys(setId));
  }
}

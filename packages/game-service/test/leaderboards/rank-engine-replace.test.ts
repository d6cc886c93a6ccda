import { describe, expect, it, vi } from 'vitest';
import type { Redis, RedisHealth } from '@playstack/server-kit';
import { connectTestRedis, testRedisEnv } from '@playstack/server-kit/testing';
import { MemoryRankEngine } from '../../src/leaderboards/memory-rank-engine.js';
import { notHeld, type HeldItem, type NotHeld } from '../../src/leaderboards/rank-engine.js';
import type { RankItem } from '../../src/leaderboards/rank-order.js';
import { RedisRankEngine } from '../../src/leaderboards/redis-rank-engine.js';

const item = (playerId: string, sortScore: number, achievedAt = 1): RankItem => ({ playerId, sortScore, sortSubscore: 0, achievedAt, displayName: `name of ${playerId}` });

async function* batchesOf(...batches: RankItem[][]): AsyncGenerator<RankItem[]> {
  for (const batch of batches) yield batch;
}

describe('MemoryRankEngine.replace (the rebuild from SQL)', () => {
  it('builds a set from its batches, one after another', async () => {
    const engine = new MemoryRankEngine();
    await engine.replace('set', batchesOf([item('a', 1), item('b', 2)], [item('c', 3)], [item('d', 4)]));
    expect(engine.itemsFrom('set', 1, 10).map((i) => i.playerId)).toEqual(['a', 'b', 'c', 'd']);
    expect(engine.standing('set', 'c', 1)).toMatchObject({ total: 4, rank: 3, windowFirstRank: 2 });
    await engine.replace('set', batchesOf());
    expect(engine.standing('set', 'c', 0)).toMatchObject({ total: 0, rank: undefined });
  });

  it('puts items SQL ordered otherwise (bytes, not UTF-16 code units) into the rank order of the engine', async () => {
    const engine = new MemoryRankEngine();
    // By UTF-8 bytes (SQLite, PostgreSQL "C") U+E000 sorts before U+1F600; in JavaScript's UTF-16
    // comparison, which the engine and cursors use, the surrogate pair of U+1F600 comes first.
    await engine.replace('set', batchesOf([item('a', 0), item('\uE000', 1)], [item('\u{1F600}', 1)]));
    expect(engine.itemsFrom('set', 1, 10).map((i) => i.playerId)).toEqual(['a', '\u{1F600}', '\uE000']);
    expect(engine.standing('set', '\uE000', 0).rank).toBe(3);
  });

  it('keeps the later read of a player read twice (its entry moved between two keyset reads)', async () => {
    const engine = new MemoryRankEngine();
    await engine.replace('set', batchesOf([item('a', 1), item('b', 2)], [item('c', 3), item('a', 4, 2)]));
    expect(engine.itemsFrom('set', 1, 10).map((i) => [i.playerId, i.sortScore])).toEqual([
      ['b', 2],
      ['c', 3],
      ['a', 4],
    ]);
  });
});

// With TEST_REDIS_URL, as the other Redis suites.
const redisEnv = testRedisEnv();
if (redisEnv) describe('RedisRankEngine.replace (the rebuild from SQL) and the sets Redis loses', () => {
  const prefix = redisEnv.REDIS_KEY_PREFIX!;
  /** This suite's keys, without its prefix (KEYS patterns are not prefixed by the client). */
  const keysOf = async (redis: Redis, set: string) => (await redis.keys(`${prefix}lb:{${set}}:*`)).map((key) => key.slice(prefix.length)).sort();
  /** Runs `test` with a connection of its own (and its RedisHealth), closed afterwards. */
  const withRedis = async (test: (redis: Redis, health: RedisHealth) => Promise<void>) => {
    const connection = await connectTestRedis(redisEnv.REDIS_URL!, prefix);
    try {
      await test(connection.redis, connection.health);
    } finally {
      await connection.close();
    }
  };
  const names = (found: HeldItem[] | NotHeld) => (found === notHeld ? found : found.map((i) => i.playerId));
  const total = async (engine: RedisRankEngine, set: string) => {
    const standing = await engine.standing(set, 'nobody', 0);
    return standing === notHeld ? standing : standing.total;
  };
  /** Yields the batches a little apart, so other calls run between them. */
  async function* slowly(items: RankItem[], size = 500, pauseMs = 5): AsyncGenerator<RankItem[]> {
    for (let start = 0; start < items.length; start += size) {
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
      yield items.slice(start, start + size);
    }
  }

  it('builds a set from batches larger and smaller than its scripts take, and empties it when there are none', () =>
    withRedis(async (redis, health) => {
      const engine = new RedisRankEngine(health);
      const players = Array.from({ length: 2_500 }, (_, i) => item(`p${String(i).padStart(5, '0')}`, i));
      expect(await engine.replace('set', batchesOf(players.slice(0, 2_100), players.slice(2_100, 2_101), players.slice(2_101)))).toBe('built');
      expect(await engine.standing('set', 'p02100', 1)).toMatchObject({ total: 2_500, rank: 2_101, windowFirstRank: 2_100 });
      expect(await engine.itemsFrom('set', 2_499, 5)).toEqual([
        { ...item('p02498', 2_498), displayName: 'name of p02498' },
        { ...item('p02499', 2_499), displayName: 'name of p02499' },
      ]);
      expect(await redis.pttl('lb:{set}:z')).toBe(-1);
      expect(await keysOf(redis, 'set')).toEqual(['lb:{set}:h', 'lb:{set}:m', 'lb:{set}:n', 'lb:{set}:z']);
      expect(await engine.replace('set', batchesOf())).toBe('built');
      expect(await engine.standing('set', 'p02100', 0)).toMatchObject({ total: 0, rank: undefined });
      // An empty set is held too: only its generation marker is left.
      expect(await keysOf(redis, 'set')).toEqual(['lb:{set}:m']);
      await engine.drop('set');
      expect(await keysOf(redis, 'set')).toEqual([]);
    }));

  it('keeps the later read of a player read twice, and gives an ended period its expiry', () =>
    withRedis(async (redis, health) => {
      const engine = new RedisRankEngine(health);
      await engine.replace('day', batchesOf([item('a', 1), item('b', 2)], [item('c', 3), item('a', 4, 2)]), { ttlMs: 60_000 });
      expect(((await engine.itemsFrom('day', 1, 10)) as HeldItem[]).map((i) => [i.playerId, i.sortScore])).toEqual([
        ['b', 2],
        ['c', 3],
        ['a', 4],
      ]);
      expect(await engine.standing('day', 'a', 0)).toMatchObject({ total: 3, rank: 3 });
      for (const key of ['lb:{day}:z', 'lb:{day}:h', 'lb:{day}:n', 'lb:{day}:m']) expect(await redis.pttl(key)).toBeGreaterThan(50_000);
      await engine.drop('day');
    }));

  it('answers "not held" for a set Redis lost or kept from another server process, and never writes a partial one', () =>
    withRedis(async (redis, health) => {
      const engine = new RedisRankEngine(health);
      // Never built: not held, and a write does not create it.
      expect(await total(engine, 'lost')).toBe(notHeld);
      expect(await engine.upsert('lost', item('a', 1))).toBe(false);
      expect(await engine.remove('lost', 'a')).toBe(false);
      expect(await keysOf(redis, 'lost')).toEqual([]);
      await engine.replace('lost', batchesOf([item('a', 1), item('b', 2)]));
      expect(await engine.holds(['lost', 'other'])).toEqual([true, false]);
      expect(await engine.upsert('lost', item('c', 3))).toBe(true);
      // Redis restarted empty: the marker went with the set.
      await redis.del('lb:{lost}:m', 'lb:{lost}:z');
      expect(await engine.itemsFrom('lost', 1, 10)).toBe(notHeld);
      expect(await engine.itemsAfter('lost', undefined, 10)).toBe(notHeld);
      expect(await engine.standing('lost', 'a', 1)).toBe(notHeld);
      expect(await engine.upsert('lost', item('d', 4))).toBe(false);
      // Restored from a snapshot another server process wrote: the marker names that process.
      await engine.replace('lost', batchesOf([item('a', 1)]));
      await redis.set('lb:{lost}:m', 'an-older-run-id');
      expect(await engine.holds(['lost'])).toEqual([false]);
      expect(await engine.itemsFrom('lost', 1, 10)).toBe(notHeld);
      expect(await engine.replace('lost', batchesOf([item('a', 1)]), { onlyIfLost: true })).toBe('built');
      expect(names(await engine.itemsFrom('lost', 1, 10))).toEqual(['a']);
      // Held whole: a rebuild only-if-lost has nothing to do.
      expect(await engine.replace('lost', batchesOf([item('z', 9)]), { onlyIfLost: true })).toBe('held');
      expect(names(await engine.itemsFrom('lost', 1, 10))).toEqual(['a']);
      await engine.drop('lost');
    }));

  it('lets one instance rebuild a set at a time: another finds it busy, and a rebuild only-if-lost waits for the first to finish', () =>
    withRedis(async (redis, health) => {
      const [first, second] = [new RedisRankEngine(health), new RedisRankEngine(health)];
      const players = (tag: string) => Array.from({ length: 3_000 }, (_, i) => item(`${tag}${String(i).padStart(5, '0')}`, i));
      const firstBuild = first.replace('set', slowly(players('x')));
      await vi.waitFor(async () => expect(await redis.exists('lb:{set}:b')).toBe(1));
      expect(await second.replace('set', slowly(players('y')))).toBe('busy');
      // Until the first rebuild is swapped in, Redis does not hold the set: SQL answers it.
      expect(await total(second, 'set')).toBe(notHeld);
      expect(await firstBuild).toBe('built');
      expect(await second.replace('set', slowly(players('y')), { onlyIfLost: true })).toBe('held');
      expect(await total(second, 'set')).toBe(3_000);
      expect(((await first.itemsFrom('set', 1, 3_000)) as HeldItem[]).every((i) => i.playerId.startsWith('x'))).toBe(true);
      expect(await keysOf(redis, 'set')).toEqual(['lb:{set}:h', 'lb:{set}:m', 'lb:{set}:n', 'lb:{set}:z']);
      await first.drop('set');
    }));

  it('keeps writes made during a rebuild over what the rebuild read, and serves the whole old set until the swap', () =>
    withRedis(async (redis, health) => {
      const engine = new RedisRankEngine(health);
      await engine.replace('set', batchesOf([item('a', 1), item('b', 2), item('c', 3)]));
      // The rebuild read SQL before these changes: a stale b, c still there, d missing.
      const rebuild = engine.replace('set', slowly([item('a', 1), item('b', 2), item('c', 3)], 1, 20));
      await vi.waitFor(async () => expect(await redis.exists('lb:{set}:b')).toBe(1));
      expect(await engine.upsert('set', item('b', 10))).toBe(true);
      expect(await engine.remove('set', 'c')).toBe(true);
      expect(await engine.upsert('set', item('d', 0))).toBe(true);
      // The old set, kept in step, answers meanwhile.
      expect(names(await engine.itemsFrom('set', 1, 10))).toEqual(['d', 'a', 'b']);
      expect(await rebuild).toBe('built');
      expect(((await engine.itemsFrom('set', 1, 10)) as HeldItem[]).map((i) => [i.playerId, i.sortScore])).toEqual([
        ['d', 0],
        ['a', 1],
        ['b', 10],
      ]);
      expect(await keysOf(redis, 'set')).toEqual(['lb:{set}:h', 'lb:{set}:m', 'lb:{set}:n', 'lb:{set}:z']);
      await engine.drop('set');
    }));

  it('leaves nothing of a failed rebuild and frees the set for the next one at once', () =>
    withRedis(async (redis, health) => {
      const engine = new RedisRankEngine(health);
      await engine.replace('set', batchesOf([item('a', 1)]));
      async function* failing(): AsyncGenerator<RankItem[]> {
        yield [item('z', 5)];
        throw new Error('the database went away');
      }
      await expect(engine.replace('set', failing())).rejects.toThrow('the database went away');
      // The SQL failure did not take Redis out of use.
      expect(health.usable).toBe(true);
      expect(names(await engine.itemsFrom('set', 1, 10))).toEqual(['a']);
      expect(await engine.replace('set', batchesOf([item('b', 2)]))).toBe('built');
      expect(names(await engine.itemsFrom('set', 1, 10))).toEqual(['b']);
      expect(await keysOf(redis, 'set')).toEqual(['lb:{set}:h', 'lb:{set}:m', 'lb:{set}:n', 'lb:{set}:z']);
      await engine.drop('set');
    }));
});

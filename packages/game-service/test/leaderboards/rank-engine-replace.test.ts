import { describe, expect, it } from 'vitest';
import { connectRedis, type Redis } from '@playstack/server-kit';
import { testRedisEnv } from '@playstack/server-kit/testing';
import { MemoryRankEngine } from '../../src/leaderboards/memory-rank-engine.js';
import type { RankItem } from '../../src/leaderboards/rank-order.js';
import { RedisRankEngine } from '../../src/leaderboards/redis-rank-engine.js';

const item = (playerId: string, sortScore: number, achievedAt = 1): RankItem => ({ playerId, sortScore, achievedAt, displayName: `name of ${playerId}` });

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
if (redisEnv) describe('RedisRankEngine.replace (the rebuild from SQL)', () => {
  const prefix = redisEnv.REDIS_KEY_PREFIX!;
  /** This suite's keys, without its prefix (KEYS patterns are not prefixed by the client). */
  const keysOf = async (redis: Redis) => (await redis.keys(`${prefix}*`)).map((key) => key.slice(prefix.length)).sort();
  /** Runs `test` with a connection of its own, closed afterwards. */
  const withRedis = async (test: (redis: Redis) => Promise<void>) => {
    const redis = await connectRedis(redisEnv.REDIS_URL!, prefix);
    try {
      await test(redis);
    } finally {
      redis.disconnect();
    }
  };

  it('builds a set from batches larger and smaller than its pipelines, and empties it when there are none', () =>
    withRedis(async (redis) => {
      const engine = new RedisRankEngine(redis);
      const players = Array.from({ length: 2_500 }, (_, i) => item(`p${String(i).padStart(5, '0')}`, i));
      await engine.replace('set', batchesOf(players.slice(0, 2_100), players.slice(2_100, 2_101), players.slice(2_101)));
      expect(await engine.standing('set', 'p02100', 1)).toMatchObject({ total: 2_500, rank: 2_101, windowFirstRank: 2_100 });
      expect((await engine.itemsFrom('set', 2_499, 5)).map((i) => [i.playerId, i.displayName])).toEqual([
        ['p02498', 'name of p02498'],
        ['p02499', 'name of p02499'],
      ]);
      expect(await redis.pttl('lb:{set}:z')).toBe(-1);
      await engine.replace('set', batchesOf());
      expect(await engine.standing('set', 'p02100', 0)).toMatchObject({ total: 0, rank: undefined });
      expect(await keysOf(redis)).toEqual([]);
    }));

  it('keeps the later read of a player read twice, and gives an ended period its expiry', () =>
    withRedis(async (redis) => {
      const engine = new RedisRankEngine(redis);
      await engine.replace('day', batchesOf([item('a', 1), item('b', 2)], [item('c', 3), item('a', 4, 2)]), 60_000);
      expect((await engine.itemsFrom('day', 1, 10)).map((i) => [i.playerId, i.sortScore])).toEqual([
        ['b', 2],
        ['c', 3],
        ['a', 4],
      ]);
      expect(await engine.standing('day', 'a', 0)).toMatchObject({ total: 3, rank: 3 });
      for (const key of ['lb:{day}:z', 'lb:{day}:h', 'lb:{day}:n']) expect(await redis.pttl(key)).toBeGreaterThan(50_000);
      await engine.drop('day');
    }));

  it('lets instances rebuilding one set together each build a whole one (the last swap wins), and leaves nothing of a failed build', () =>
    withRedis(async (redis) => {
      const [first, second] = [new RedisRankEngine(redis), new RedisRankEngine(redis)];
      const players = (prefix: string) => Array.from({ length: 3_000 }, (_, i) => item(`${prefix}${String(i).padStart(5, '0')}`, i));
      async function* slowly(items: RankItem[]): AsyncGenerator<RankItem[]> {
        for (let start = 0; start < items.length; start += 500) {
          await new Promise((resolve) => setTimeout(resolve, 5));
          yield items.slice(start, start + 500);
        }
      }
      await Promise.all([first.replace('set', slowly(players('x'))), second.replace('set', slowly(players('y')))]);
      const total = (await first.standing('set', 'nobody', 0)).total;
      expect(total).toBe(3_000);
      const top = (await first.itemsFrom('set', 1, 1))[0]!.playerId[0];
      expect((await first.itemsFrom('set', 1, 3_000)).every((i) => i.playerId[0] === top)).toBe(true);

      async function* failing(): AsyncGenerator<RankItem[]> {
        yield players('z').slice(0, 1_500);
        throw new Error('the database went away');
      }
      await expect(first.replace('set', failing())).rejects.toThrow('the database went away');
      expect(await keysOf(redis)).toEqual(['lb:{set}:h', 'lb:{set}:n', 'lb:{set}:z']);
      expect((await first.standing('set', 'nobody', 0)).total).toBe(3_000);
      await first.drop('set');
    }));
});

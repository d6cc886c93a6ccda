import { describe, expect, it } from 'vitest';
import { connectRedis } from '@playstack/server-kit';
import { testRedisEnv } from '@playstack/server-kit/testing';
import { MemoryRankEngine } from '../../src/leaderboards/memory-rank-engine.js';
import type { RankItem } from '../../src/leaderboards/rank-order.js';
import { RedisRankEngine } from '../../src/leaderboards/redis-rank-engine.js';

const item = (playerId: string, sortScore: number): RankItem => ({ playerId, sortScore, achievedAt: 1, displayName: `name of ${playerId}` });

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
});

// With TEST_REDIS_URL, as the other Redis suites.
const redisEnv = testRedisEnv();
if (redisEnv) describe('RedisRankEngine.replace (the rebuild from SQL)', () => {
  it('builds a set from batches larger and smaller than its pipelines, and empties it when there are none', async () => {
    const redis = await connectRedis(redisEnv.REDIS_URL!, redisEnv.REDIS_KEY_PREFIX!);
    try {
      const engine = new RedisRankEngine(redis);
      const players = Array.from({ length: 2_500 }, (_, i) => item(`p${String(i).padStart(5, '0')}`, i));
      await engine.replace('set', batchesOf(players.slice(0, 2_100), players.slice(2_100, 2_101), players.slice(2_101)));
      expect(await engine.standing('set', 'p02100', 1)).toMatchObject({ total: 2_500, rank: 2_101, windowFirstRank: 2_100 });
      expect((await engine.itemsFrom('set', 2_499, 5)).map((i) => [i.playerId, i.displayName])).toEqual([
        ['p02498', 'name of p02498'],
        ['p02499', 'name of p02499'],
      ]);
      await engine.replace('set', batchesOf());
      expect(await engine.standing('set', 'p02100', 0)).toMatchObject({ total: 0, rank: undefined });
    } finally {
      redis.disconnect();
    }
  });
});

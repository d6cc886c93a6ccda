import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { attemptCounterFor, ManualClock, type RedisRecovery } from '../src/index.js';
import { connectTestRedis, TestRedisServer, type TestRedisConnection } from '../src/testing/index.js';

/** Times a call: its outcome and how long it took. */
async function timed<T>(work: () => Promise<T>): Promise<{ outcome: T | Error; ms: number }> {
  const started = performance.now();
  const outcome = await work().catch((error: Error) => error);
  return { outcome, ms: performance.now() - started };
}

describe('Redis connections and RedisHealth through an outage', () => {
  let server: TestRedisServer;
  let connection: TestRedisConnection;
  const commandTimeoutMs = 300;
  beforeAll(async () => {
    server = await TestRedisServer.start();
    connection = await connectTestRedis(server.url, 'health:', commandTimeoutMs);
  });
  afterAll(async () => {
    await connection?.close();
    await server?.dispose();
  });

  it('fails a command at once while Redis is down (no offline queue, no retries), and within the command timeout while it hangs', async () => {
    const { redis, health } = connection;
    expect(await redis.set('k', 'v')).toBe('OK');
    await server.stop();
    const down = await timed(() => redis.get('k'));
    expect(down.outcome).toBeInstanceOf(Error);
    expect(down.ms).toBeLessThan(100);
    const fellBack = await timed(() => health.orElse('test', () => redis.get('k'), () => 'local'));
    expect(fellBack.outcome).toBe('local');
    expect(fellBack.ms).toBeLessThan(100);
    expect(health.usable).toBe(false);
    await server.start();
    await vi.waitFor(() => expect(health.usable).toBe(true), { timeout: 3_000, interval: 20 });

    server.pause();
    try {
      const hung = await timed(() => redis.get('k'));
      expect((hung.outcome as Error).message).toBe('Command timed out');
      expect(hung.ms).toBeGreaterThanOrEqual(commandTimeoutMs - 5);
      expect(hung.ms).toBeLessThan(commandTimeoutMs + 200);
      health.failed('test', hung.outcome);
      expect(health.usable).toBe(false);
      // Out of use: the fallback answers without asking Redis (no second timeout).
      const fallback = await timed(() => health.orElse('test', () => redis.get('k'), () => 'local'));
      expect(fallback).toMatchObject({ outcome: 'local' });
      expect(fallback.ms).toBeLessThan(50);
    } finally {
      server.resume();
    }
    await vi.waitFor(() => expect(health.usable).toBe(true), { timeout: 3_000, interval: 20 });
  });

  it('tells listeners when Redis answers again, and whether it is another server process (a restart)', async () => {
    const { health } = connection;
    const recoveries: RedisRecovery[] = [];
    health.onRecovered((recovery) => {
      recoveries.push(recovery);
    });
    const before = health.serverId;
    server.pause();
    health.failed('test', new Error('Command timed out'));
    server.resume();
    await vi.waitFor(() => expect(recoveries).toHaveLength(1), { timeout: 3_000, interval: 20 });
    expect(recoveries[0]!.restarted).toBe(false);
    expect(health.serverId).toBe(before);

    await server.stop();
    await server.start();
    await vi.waitFor(() => expect(recoveries).toHaveLength(2), { timeout: 3_000, interval: 20 });
    expect(recoveries[1]!.restarted).toBe(true);
    expect(health.serverId).not.toBe(before);
    expect(health.serverId).toMatch(/^[0-9a-f]{40}$/);
  });

  it('does not take Redis out of use for a command Redis refused (a bug, not an outage)', async () => {
    const { redis, health } = connection;
    await redis.set('text', 'not a list');
    const refused = await redis.lpush('text', 'x').catch((error: Error) => error);
    health.failed('test', refused);
    expect(health.usable).toBe(true);
  });
});

describe('attempt counters through a Redis outage', () => {
  it('count in this process while Redis is down, and in Redis again once it answers', async () => {
    const server = await TestRedisServer.start();
    const connection = await connectTestRedis(server.url, 'attempts:');
    try {
      const counter = attemptCounterFor({ redisHealth: connection.health, clock: new ManualClock('2026-11-21T10:00:00.000Z') }, 'test');
      expect(await counter.hit('k', 60_000)).toMatchObject({ count: 1 });
      await server.stop();
      // Counted here while Redis is down: the limit holds per instance.
      expect(await counter.hit('k', 60_000)).toMatchObject({ count: 1 });
      expect(await counter.hit('k', 60_000)).toMatchObject({ count: 2 });
      expect(await counter.peek('k')).toMatchObject({ count: 2 });
      await server.start();
      await vi.waitFor(() => expect(connection.health.usable).toBe(true), { timeout: 3_000, interval: 20 });
      // The restarted Redis is empty: counting starts again there.
      expect(await counter.hit('k', 60_000)).toMatchObject({ count: 1 });
      expect(Number(await connection.redis.get('test:k'))).toBe(1);
    } finally {
      await connection.close();
      await server.dispose();
    }
  });
});

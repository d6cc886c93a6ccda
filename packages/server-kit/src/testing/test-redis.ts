import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { connectRedis, type Redis } from '../redis/redis.js';
import { RedisHealth } from '../redis/redis-health.js';

/**
 * Redis for tests: TEST_REDIS_URL with a unique key prefix per call, or undefined. The shared
 * Redis never goes away, so its command timeout is long: under a loaded CI machine a command can
 * stall past the 500 ms default, which takes Redis out of use and sends the service to its
 * in-process fallbacks mid-test (seen as a sign-in throttle that forgot its Redis counts).
 * Suites about outages run a Redis of their own (TestRedisServer) and set the timeout they test.
 */
export function testRedisEnv(): Record<string, string> | undefined {
  const url = process.env.TEST_REDIS_URL;
  if (!url) return undefined;
  return { REDIS_URL: url, REDIS_KEY_PREFIX: `test:${randomBytes(6).toString('hex')}:`, REDIS_COMMAND_TIMEOUT_MS: '10000' };
}

/** The storage variants a suite covers: without Redis always, with Redis when TEST_REDIS_URL is set. */
export function redisVariants(): Array<{ name: string; env: () => Record<string, string> }> {
  const variants = [{ name: 'in-process', env: () => ({}) }];
  if (process.env.TEST_REDIS_URL) variants.push({ name: 'redis', env: () => testRedisEnv() ?? {} });
  return variants;
}

/** A Redis connection as a service makes it, with its RedisHealth, for tests of code that takes one. */
export interface TestRedisConnection {
  readonly redis: Redis;
  readonly health: RedisHealth;
  close(): Promise<void>;
}

/** Connects to `url` the way a service does (command timeout, no offline queue) and starts watching it. */
export async function connectTestRedis(url: string, keyPrefix: string, commandTimeoutMs = 2_000): Promise<TestRedisConnection> {
  const redis = await connectRedis(url, { keyPrefix, commandTimeoutMs });
  const health = new RedisHealth(redis, { log: pino({ level: 'silent' }), registry: new Registry(), metricsPrefix: 'test' });
  await health.start();
  return {
    redis,
    health,
    async close() {
      health.close();
      redis.disconnect();
    },
  };
}

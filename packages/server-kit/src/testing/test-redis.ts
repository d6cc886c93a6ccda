import { randomBytes } from 'node:crypto';

/** Redis for tests: TEST_REDIS_URL with a unique key prefix per call, or undefined. */
export function testRedisEnv(): Record<string, string> | undefined {
  const url = process.env.TEST_REDIS_URL;
  if (!url) return undefined;
  return { REDIS_URL: url, REDIS_KEY_PREFIX: `test:${randomBytes(6).toString('hex')}:` };
}

/** The storage variants a suite covers: without Redis always, with Redis when TEST_REDIS_URL is set. */
export function redisVariants(): Array<{ name: string; env: () => Record<string, string> }> {
  const variants = [{ name: 'in-process', env: () => ({}) }];
  if (process.env.TEST_REDIS_URL) variants.push({ name: 'redis', env: () => testRedisEnv() ?? {} });
  return variants;
}

import { Redis } from 'ioredis';

export type { Redis } from 'ioredis';

/**
 * Connects to Redis. Commands fail fast while disconnected (no unbounded offline queue), so a
 * Redis outage shows up as errors and a failing readiness check, not as hung requests.
 */
export async function connectRedis(url: string, keyPrefix: string): Promise<Redis> {
  const redis = new Redis(url, {
    keyPrefix,
    lazyConnect: true,
    enableOfflineQueue: true,
    maxRetriesPerRequest: 2,
    connectTimeout: 5_000,
  });
  // Connection errors surface through commands and readiness; without a listener ioredis logs them.
  redis.on('error', () => undefined);
  await redis.connect();
  return redis;
}

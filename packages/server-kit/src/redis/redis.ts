import { Redis } from 'ioredis';
import { traceRedis } from '../telemetry/redis-spans.js';
import { activeTracing } from '../telemetry/tracing.js';

export type { Redis } from 'ioredis';

export interface RedisConnectionOptions {
  keyPrefix: string;
  /** The longest one command may take before it fails (`REDIS_COMMAND_TIMEOUT_MS`). */
  commandTimeoutMs: number;
}

/** The longest wait between two reconnection attempts: a Redis that is back is noticed within it. */
const maxReconnectDelayMs = 1_000;
const reconnectStepMs = 100;
const connectTimeoutMs = 5_000;

/**
 * Connects to Redis so that an outage is an error the caller can fall back from at once, never a
 * call held for seconds:
 * - no offline queue: a command sent while disconnected fails immediately (ioredis would
 *   otherwise queue it until a reconnection, and `maxRetriesPerRequest` reconnections failed);
 * - `maxRetriesPerRequest: 0`: commands in flight when the connection drops fail at once instead
 *   of being sent again after a reconnection (a rate-limit INCR must not count twice);
 * - `commandTimeout`: a Redis that keeps the connection but does not answer (paused, swapping,
 *   a network black hole) fails each command within the timeout.
 * Reconnection goes on in the background, at least once a second.
 */
export async function connectRedis(url: string, options: RedisConnectionOptions): Promise<Redis> {
  const redis = new Redis(url, {
    keyPrefix: options.keyPrefix,
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    commandTimeout: options.commandTimeoutMs,
    connectTimeout: connectTimeoutMs,
    retryStrategy: (attempt) => Math.min(attempt * reconnectStepMs, maxReconnectDelayMs),
  });
  const tracing = activeTracing();
  if (tracing) traceRedis(redis, tracing);
  // Connection errors surface through commands and RedisHealth; without a listener ioredis logs them.
  redis.on('error', () => undefined);
  try {
    await redis.connect();
  } catch (error) {
    // Stop the reconnection loop, or it would keep the process alive behind the failed boot.
    redis.disconnect();
    throw error;
  }
  return redis;
}

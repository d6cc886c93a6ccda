import type { Clock, RedisHealth } from '@playstack/server-kit';

/** The verdict for one envelope. */
export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

const windowMs = 1_000;

/**
 * Envelopes per ingestion key per one-second window. With Redis the count is shared by every
 * instance (one INCR per envelope); without it, or while Redis is out of use, each instance
 * counts its own.
 */
export class IngestRateLimiter {
  readonly #limitPerSecond: number;
  readonly #clock: Clock;
  readonly #redis: RedisHealth | undefined;
  readonly #local = new Map<string, { window: number; count: number }>();

  constructor(options: { limitPerSecond: number; clock: Clock; redis: RedisHealth | undefined }) {
    this.#limitPerSecond = options.limitPerSecond;
    this.#clock = options.clock;
    this.#redis = options.redis;
  }

  /** Counts one envelope for the key and says whether it is within the rate. */
  async take(keyId: string): Promise<RateDecision> {
    const now = this.#clock.now();
    const window = Math.floor(now / windowMs);
    const redis = this.#redis;
    const count = redis
      ? await redis.orElse('ingest-rate-limit', () => this.#takeShared(redis, keyId, window), () => this.#takeLocal(keyId, window))
      : this.#takeLocal(keyId, window);
    if (count <= this.#limitPerSecond) return { allowed: true };
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(((window + 1) * windowMs - now) / 1000)) };
  }

  #takeLocal(keyId: string, window: number): number {
    const entry = this.#local.get(keyId);
    if (entry && entry.window === window) return ++entry.count;
    // Entries of past windows are dead weight; dropping them all keeps the map to active keys.
    if (this.#local.size > 10_000) this.#local.clear();
    this.#local.set(keyId, { window, count: 1 });
    return 1;
  }

  async #takeShared(redis: RedisHealth, keyId: string, window: number): Promise<number> {
    const key = `ingest-rate:${keyId}:${window}`;
    const results = await redis.redis.multi().incr(key).pexpire(key, windowMs * 2).exec();
    if (!results) throw new Error('the Redis transaction was discarded');
    const [incrError, count] = results[0]!;
    if (incrError) throw incrError;
    return Number(count);
  }
}

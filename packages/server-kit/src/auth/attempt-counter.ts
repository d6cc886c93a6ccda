import type { Redis } from 'ioredis';
import type { RedisHealth } from '../redis/redis-health.js';
import type { Clock } from '../system/clock.js';

/** A fixed-window count: how many hits, and how long until the window (and any block it causes) ends. */
export interface WindowCount {
  count: number;
  remainingMs: number;
}

interface OpenWindow {
  count: number;
  resetAt: number;
}

/** Counts events per key in fixed windows that expire on their own. */
export interface AttemptCounter {
  /** Counts one event; the window starts at the first event. */
  hit(key: string, windowMs: number): Promise<WindowCount>;
  /** The current count (0 when no window is open). */
  peek(key: string): Promise<WindowCount>;
  reset(key: string): Promise<void>;
}

/** The most keys the in-process counter holds; beyond that, expired then oldest windows go. */
const maxInMemoryKeys = 100_000;

/** Counts in this process (one instance, or tests). */
export class InMemoryAttemptCounter implements AttemptCounter {
  readonly #windows = new Map<string, OpenWindow>();
  readonly #clock: Clock;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  async hit(key: string, windowMs: number): Promise<WindowCount> {
    const now = this.#clock.now();
    const current = this.#current(key, now);
    const next = current ? { count: current.count + 1, resetAt: current.resetAt } : { count: 1, resetAt: now + windowMs };
    this.#windows.delete(key);
    if (this.#windows.size >= maxInMemoryKeys) this.#evict(now);
    this.#windows.set(key, next);
    return { count: next.count, remainingMs: next.resetAt - now };
  }

  async peek(key: string): Promise<WindowCount> {
    const now = this.#clock.now();
    const window = this.#current(key, now);
    return window ? { count: window.count, remainingMs: window.resetAt - now } : { count: 0, remainingMs: 0 };
  }

  async reset(key: string): Promise<void> {
    this.#windows.delete(key);
  }

  #current(key: string, now: number): OpenWindow | undefined {
    const window = this.#windows.get(key);
    if (window && window.resetAt <= now) {
      this.#windows.delete(key);
      return undefined;
    }
    return window;
  }

  #evict(now: number): void {
    for (const [key, window] of this.#windows) if (window.resetAt <= now) this.#windows.delete(key);
    if (this.#windows.size < maxInMemoryKeys) return;
    const oldest = this.#windows.keys().next().value;
    if (oldest !== undefined) this.#windows.delete(oldest);
  }
}

/** Counts in Redis, shared by every instance; windows expire through Redis TTLs. */
export class RedisAttemptCounter implements AttemptCounter {
  readonly #redis: Redis;
  readonly #namespace: string;

  constructor(redis: Redis, namespace: string) {
    this.#redis = redis;
    this.#namespace = namespace;
  }

  async hit(key: string, windowMs: number): Promise<WindowCount> {
    const redisKey = this.#key(key);
    // SET NX opens the window with its expiry; INCR keeps that expiry. (PEXPIRE ... NX would
    // need Redis 7.)
    const result = await this.#redis.multi().set(redisKey, 0, 'PX', windowMs, 'NX').incr(redisKey).pttl(redisKey).exec();
    const count = Number(result?.[1]?.[1] ?? 1);
    const ttl = Number(result?.[2]?.[1] ?? windowMs);
    return { count, remainingMs: Math.max(ttl, 0) };
  }

  async peek(key: string): Promise<WindowCount> {
    const redisKey = this.#key(key);
    const result = await this.#redis.multi().get(redisKey).pttl(redisKey).exec();
    const count = Number(result?.[0]?.[1] ?? 0);
    const ttl = Number(result?.[1]?.[1] ?? 0);
    return { count, remainingMs: Math.max(ttl, 0) };
  }

  async reset(key: string): Promise<void> {
    await this.#redis.del(this.#key(key));
  }

  #key(key: string): string {
    return `${this.#namespace}:${key}`;
  }
}

/**
 * The counter a service uses: in Redis when it has Redis (shared by every instance), and in this
 * process while Redis is out of use, so an outage neither fails sign-ins nor lifts the limits
 * (they count per instance meanwhile). Without Redis, in this process.
 */
export function attemptCounterFor(platform: { redisHealth: RedisHealth | undefined; clock: Clock }, namespace: string): AttemptCounter {
  const local = new InMemoryAttemptCounter(platform.clock);
  const health = platform.redisHealth;
  if (!health) return local;
  const shared = new RedisAttemptCounter(health.redis, namespace);
  const use = 'attempt-counter';
  return {
    hit: (key, windowMs) => health.orElse(use, () => shared.hit(key, windowMs), () => local.hit(key, windowMs)),
    peek: (key) => health.orElse(use, () => shared.peek(key), () => local.peek(key)),
    async reset(key) {
      // Failures counted here during an outage are forgotten too.
      await local.reset(key);
      await health.orElse(use, () => shared.reset(key), () => undefined);
    },
  };
}

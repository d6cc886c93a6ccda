import { createRequire } from 'node:module';
import type { FastifyRateLimitStore } from '@fastify/rate-limit';
import type { RedisHealth } from '@playstack/server-kit';

type Callback = Parameters<FastifyRateLimitStore['incr']>[1];

/** What a limiter asks of the plugin's stores (CommonJS modules without type declarations): count a request. */
export type CounterStore = Pick<FastifyRateLimitStore, 'incr'>;
const require = createRequire(import.meta.url);
const RedisStore = require('@fastify/rate-limit/store/RedisStore.js') as new (continueExceeding: boolean, exponentialBackoff: boolean, redis: unknown, key: string) => CounterStore;
const LocalStore = require('@fastify/rate-limit/store/LocalStore.js') as new (continueExceeding: boolean, exponentialBackoff: boolean, cache: number) => CounterStore;

const use = 'rate-limit';

/**
 * A @fastify/rate-limit store that counts in Redis while it is usable and in this process (an
 * LRU, like the plugin's store without Redis) while it is not: a Redis outage neither fails
 * requests nor lifts the limits, which count per instance meanwhile.
 */
class FallbackStore implements CounterStore {
  readonly #shared: CounterStore;
  readonly #local: CounterStore;
  readonly #health: RedisHealth;

  constructor(shared: CounterStore, local: CounterStore, health: RedisHealth) {
    this.#shared = shared;
    this.#local = local;
    this.#health = health;
  }

  incr(key: string, callback: Callback, timeWindow: number, max: number): void {
    type Counted = { current: number; ttl: number } | undefined;
    const ask = (store: CounterStore) =>
      new Promise<Counted>((resolve, reject) => store.incr(key, (error, result) => (error ? reject(error) : resolve(result)), timeWindow, max));
    this.#health.orElse(use, () => ask(this.#shared), () => ask(this.#local)).then(
      (result) => callback(null, result),
      (error: Error) => callback(error),
    );
  }
}

/**
 * The counters of one limiter: @fastify/rate-limit's in-process store (an LRU of `cache`
 * counters), or with Redis its Redis store (keys under `nameSpace`) falling back to that one
 * while Redis is out of use.
 */
export function limitStore(health: RedisHealth | undefined, nameSpace: string, cache: number): CounterStore {
  const local = new LocalStore(false, false, cache);
  return health ? new FallbackStore(new RedisStore(false, false, health.redis, nameSpace), local, health) : local;
}

import { createRequire } from 'node:module';
import type { FastifyRateLimitStore } from '@fastify/rate-limit';
import type { RedisHealth } from '@playstack/server-kit';

type Callback = Parameters<FastifyRateLimitStore['incr']>[1];
type RouteOptions = Parameters<FastifyRateLimitStore['child']>[0];

/** The plugin's own stores, as its index uses them (CommonJS modules without type declarations). */
export interface PluginStore extends FastifyRateLimitStore {
  read(key: string, callback: Callback, timeWindow: number, max: number): void;
  child(routeOptions: RouteOptions): PluginStore;
}
const require = createRequire(import.meta.url);
const RedisStore = require('@fastify/rate-limit/store/RedisStore.js') as new (continueExceeding: boolean, exponentialBackoff: boolean, redis: unknown, key: string) => PluginStore;
const LocalStore = require('@fastify/rate-limit/store/LocalStore.js') as new (continueExceeding: boolean, exponentialBackoff: boolean, cache: number) => PluginStore;

const use = 'rate-limit';

/**
 * A @fastify/rate-limit store that counts in Redis while it is usable and in this process (an
 * LRU, like the plugin's store without Redis) while it is not: a Redis outage neither fails
 * requests nor lifts the limits, which count per instance meanwhile.
 */
class FallbackStore implements PluginStore {
  readonly #shared: PluginStore;
  readonly #local: PluginStore;
  readonly #health: RedisHealth;

  constructor(shared: PluginStore, local: PluginStore, health: RedisHealth) {
    this.#shared = shared;
    this.#local = local;
    this.#health = health;
  }

  incr(key: string, callback: Callback, timeWindow: number, max: number): void {
    this.#either('incr', key, callback, timeWindow, max);
  }

  read(key: string, callback: Callback, timeWindow: number, max: number): void {
    this.#either('read', key, callback, timeWindow, max);
  }

  child(routeOptions: RouteOptions): PluginStore {
    return new FallbackStore(this.#shared.child(routeOptions), this.#local.child(routeOptions), this.#health);
  }

  #either(method: 'incr' | 'read', key: string, callback: Callback, timeWindow: number, max: number): void {
    type Counted = { current: number; ttl: number } | undefined;
    const ask = (store: PluginStore) =>
      new Promise<Counted>((resolve, reject) => store[method](key, (error, result) => (error ? reject(error) : resolve(result)), timeWindow, max));
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
export function limitStore(health: RedisHealth | undefined, nameSpace: string, cache: number): PluginStore {
  const local = new LocalStore(false, false, cache);
  return health ? new FallbackStore(new RedisStore(false, false, health.redis, nameSpace), local, health) : local;
}

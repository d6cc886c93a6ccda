import { createRequire } from 'node:module';
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { RedisHealth } from '@playstack/server-kit';

type Callback = Parameters<FastifyRateLimitStore['incr']>[1];
type RouteOptions = Parameters<FastifyRateLimitStore['child']>[0];

/** The plugin's own stores, as its index uses them (CommonJS modules without type declarations). */
interface PluginStore extends FastifyRateLimitStore {
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
 * The `store` option for @fastify/rate-limit: Redis with a per-instance fallback. `cache`: how
 * many counters the fallback keeps (the plugin passes a limiter's own `cache` to `child`).
 */
export function fallbackStore(health: RedisHealth, nameSpace: string, cache: number): FastifyRateLimitStoreCtor {
  return class extends FallbackStore {
    constructor(options: { continueExceeding?: boolean; exponentialBackoff?: boolean }) {
      const continueExceeding = options.continueExceeding ?? false;
      const exponentialBackoff = options.exponentialBackoff ?? false;
      super(new RedisStore(continueExceeding, exponentialBackoff, health.redis, nameSpace), new LocalStore(continueExceeding, exponentialBackoff, cache), health);
    }
  };
}

import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '@playstack/server-kit';
import { limitStore, type CounterStore } from './fallback-store.js';

/** A limiter, as an onRequest or preHandler hook. */
export type LimitHook = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void;

declare module 'fastify' {
  interface FastifyInstance {
    /** Per client address, as an onRequest hook; the auth routes use it (they have no player yet). */
    authRateLimit: LimitHook;
    /** Per player, the default limit of game endpoints; place it after `app.requirePlayer`. */
    playerRateLimit: LimitHook;
    /**
     * A per-player limit with counters of its own (`name` keeps them apart), e.g. a stricter one
     * for run submissions. Use as a preHandler after `app.requirePlayer`.
     */
    createPlayerRateLimit(name: string, limit: Limit): LimitHook;
  }
}

export interface Limit {
  max: number;
  timeWindowMs: number;
}

export interface RateLimitsOptions {
  auth: Limit;
  player: Limit;
  /**
   * Without Redis: how many counters each limit keeps in memory (an LRU per limit). Past that the
   * least recently seen are forgotten, so a client beyond it would count from zero.
   */
  memoryKeys: number;
}

/** The 429 every limiter answers, through the one error envelope. */
function rateLimited(ttlMs: number): ApiError {
  const retryAfterSeconds = Math.max(1, Math.ceil(ttlMs / 1000));
  return new ApiError('rate-limited', `Too many requests; retry in ${retryAfterSeconds} s.`, {
    headers: { 'retry-after': String(retryAfterSeconds) },
  });
}

const nameSpace = 'rate-limit:';

/**
 * A limiter's hook: counts the request in `store` (@fastify/rate-limit's stores: a fixed window
 * per key) and answers with the draft standard's `RateLimit-Limit`, `-Remaining` and `-Reset`
 * headers, or 429 with `Retry-After` past `limit.max`. Called back, not awaited: the plugin's own
 * hook spends seven promises per request (four awaits), and every promise costs a run through
 * the async hooks on Node.js 20 while a traced request is in flight. A store that fails lets the
 * request pass.
 */
function limitHook(store: CounterStore, limit: Limit, keyOf: (request: FastifyRequest) => string): LimitHook {
  return (request, reply, done) => {
    store.incr(
      keyOf(request),
      (error, counted) => {
        if (error || !counted) {
          done();
          return;
        }
        const resetSeconds = Math.ceil(counted.ttl / 1000);
        const exceeded = counted.current > limit.max;
        reply.header('ratelimit-limit', limit.max);
        reply.header('ratelimit-remaining', exceeded ? 0 : limit.max - counted.current);
        reply.header('ratelimit-reset', resetSeconds);
        if (!exceeded) {
          done();
          return;
        }
        // `Retry-After` comes with the error (at least one second).
        done(rateLimited(counted.ttl));
      },
      limit.timeWindowMs,
      limit.max,
    );
  };
}

/**
 * Rate limits on @fastify/rate-limit's stores. Counters live in Redis when it is configured, so
 * every instance counts against the same limit, and in memory otherwise. Nothing is limited
 * unless a route asks: the auth routes per client address, the other game routes per player.
 * While Redis is out of use each instance counts in memory (a limiter outage must be neither an
 * outage nor a free-for-all); should even that fail, the request passes.
 */
export const rateLimitsPlugin = fp<RateLimitsOptions>(
  async (app, options) => {
    // Each limiter has counters of its own; without Redis, an LRU of `memoryKeys` counters (the
    // plugin's own default, 5,000, would forget active clients of a busy service).
    const limiter = (limit: Limit, keyOf: (request: FastifyRequest) => string) => limitHook(limitStore(app.redisHealth, nameSpace, options.memoryKeys), limit, keyOf);
    const createPlayerRateLimit = (name: string, limit: Limit) => limiter(limit, (request) => `player:${name}:${request.player.id}`);
    app.decorate('authRateLimit', limiter(options.auth, (request) => `auth:${request.ip}`));
    app.decorate('playerRateLimit', createPlayerRateLimit('default', options.player));
    app.decorate('createPlayerRateLimit', createPlayerRateLimit);
  },
  { name: 'game-rate-limits' },
);

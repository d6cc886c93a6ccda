import rateLimit from '@fastify/rate-limit';
import type { FastifyRequest, onRequestAsyncHookHandler, preHandlerAsyncHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '@playstack/server-kit';
import { fallbackStore } from './fallback-store.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Per client address, as an onRequest hook; the auth routes use it (they have no player yet). */
    authRateLimit: onRequestAsyncHookHandler;
    /** Per player, the default limit of game endpoints; place it after `app.requirePlayer`. */
    playerRateLimit: preHandlerAsyncHookHandler;
    /**
     * A per-player limit with counters of its own (`name` keeps them apart), e.g. a stricter one
     * for run submissions. Use as a preHandler after `app.requirePlayer`.
     */
    createPlayerRateLimit(name: string, limit: Limit): preHandlerAsyncHookHandler;
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
function rateLimited(_request: FastifyRequest, context: { ttl: number }): ApiError {
  const retryAfterSeconds = Math.max(1, Math.ceil(context.ttl / 1000));
  return new ApiError('rate-limited', `Too many requests; retry in ${retryAfterSeconds} s.`, {
    headers: { 'retry-after': String(retryAfterSeconds) },
  });
}

const nameSpace = 'rate-limit:';

/**
 * Rate limits with @fastify/rate-limit. Counters live in Redis when it is configured, so every
 * instance counts against the same limit, and in memory otherwise. Nothing is limited unless a
 * route asks: the auth routes per client address, the other game routes per player. While Redis
 * is out of use each instance counts in memory (a limiter outage must be neither an outage nor a
 * free-for-all); `skipOnError` lets a request pass should even that fail.
 */
export const rateLimitsPlugin = fp<RateLimitsOptions>(
  async (app, options) => {
    await app.register(rateLimit, {
      global: false,
      enableDraftSpec: true,
      skipOnError: true,
      nameSpace,
      ...(app.redisHealth ? { store: fallbackStore(app.redisHealth, nameSpace, options.memoryKeys) } : {}),
      errorResponseBuilder: rateLimited,
    });
    // Each limiter gets a store of its own; without Redis, an LRU of `cache` counters (the
    // plugin's own default, 5,000, would forget active clients of a busy service).
    const limiter = (limit: Limit, keyGenerator: (request: FastifyRequest) => string) =>
      app.rateLimit({ max: limit.max, timeWindow: limit.timeWindowMs, keyGenerator, cache: options.memoryKeys });
    const createPlayerRateLimit = (name: string, limit: Limit) =>
      limiter(limit, (request) => `player:${name}:${request.player.id}`) as preHandlerAsyncHookHandler;
    app.decorate('authRateLimit', limiter(options.auth, (request) => `auth:${request.ip}`) as onRequestAsyncHookHandler);
    app.decorate('playerRateLimit', createPlayerRateLimit('default', options.player));
    app.decorate('createPlayerRateLimit', createPlayerRateLimit);
  },
  { name: 'game-rate-limits' },
);

import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler, preHandlerAsyncHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '@playstack/server-kit';

declare module 'fastify' {
  interface FastifyInstance {
    /** Per client address, as an onRequest hook; the auth routes use it (they have no player yet). */
    authRateLimit: onRequestAsyncHookHandler;
    /** Per player, the default limit of game endpoints; place it after `app.requirePlayer`. */
    playerRateLimit: preHandlerAsyncHookHandler;
  }
}

export interface Limit {
  max: number;
  timeWindowMs: number;
}

export interface RateLimitsOptions {
  auth: Limit;
  player: Limit;
}

/** The 429 every limiter answers, through the one error envelope. */
function rateLimited(_request: FastifyRequest, context: { ttl: number }): ApiError {
  const retryAfterSeconds = Math.max(1, Math.ceil(context.ttl / 1000));
  return new ApiError('rate-limited', `Too many requests; retry in ${retryAfterSeconds} s.`, {
    headers: { 'retry-after': String(retryAfterSeconds) },
  });
}

/**
 * A per-player limit of its own (its own counters), e.g. a stricter one for run submissions.
 * Use as a preHandler after `app.requirePlayer`; `name` keeps its counters apart from others'.
 */
export function createPlayerRateLimit(app: FastifyInstance, name: string, limit: Limit): preHandlerAsyncHookHandler {
  return app.rateLimit({
    max: limit.max,
    timeWindow: limit.timeWindowMs,
    keyGenerator: (request) => `player:${name}:${request.player.id}`,
  }) as preHandlerAsyncHookHandler;
}

/**
 * Rate limits with @fastify/rate-limit. Counters live in Redis when it is configured, so every
 * instance counts against the same limit, and in memory otherwise. Nothing is limited unless a
 * route asks: the auth routes per client address, the other game routes per player. When Redis
 * fails, requests pass rather than fail (`skipOnError`): a limiter outage must not be an outage.
 */
export const rateLimitsPlugin = fp<RateLimitsOptions>(
  async (app, options) => {
    await app.register(rateLimit, {
      global: false,
      enableDraftSpec: true,
      skipOnError: true,
      nameSpace: 'rate-limit:',
      ...(app.redis ? { redis: app.redis } : {}),
      errorResponseBuilder: rateLimited,
    });
    app.decorate(
      'authRateLimit',
      app.rateLimit({ max: options.auth.max, timeWindow: options.auth.timeWindowMs, keyGenerator: (request) => `auth:${request.ip}` }) as onRequestAsyncHookHandler,
    );
    app.decorate('playerRateLimit', createPlayerRateLimit(app, 'default', options.player));
  },
  { name: 'game-rate-limits' },
);

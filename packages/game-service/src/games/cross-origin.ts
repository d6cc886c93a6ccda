import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

/** Headers a browser game reads from game API responses. */
const exposedHeaders = ['x-request-id', 'retry-after', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'];
const preflightMaxAgeSeconds = 600;

/**
 * Lets browser games served from the configured origins call the game API (`*` for any).
 * Credentials are bearer tokens in headers, never cookies, so no origin gains ambient authority.
 * Without configured origins, no CORS headers are sent and browsers keep the same-origin rule.
 */
export async function allowCrossOriginGames(scope: FastifyInstance, origins: readonly string[]): Promise<void> {
  if (origins.length === 0) return;
  await scope.register(cors, {
    origin: origins.includes('*') ? '*' : [...origins],
    methods: ['GET', 'POST', 'DELETE'],
    // traceparent and tracestate: the W3C trace context the client library sends on each call.
    allowedHeaders: ['authorization', 'content-type', 'x-request-id', 'traceparent', 'tracestate'],
    exposedHeaders,
    credentials: false,
    maxAge: preflightMaxAgeSeconds,
  });
}

/** Parses `GAME_CORS_ORIGINS`: comma-separated origins, or `*`. */
export function parseOrigins(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((origin) => origin.trim().replace(/\/$/, ''))
    .filter((origin) => origin.length > 0);
}

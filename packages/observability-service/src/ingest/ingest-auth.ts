import type { FastifyInstance } from 'fastify';
import { ApiError } from '@playstack/server-kit';
import type { IngestRateLimiter } from './ingest-rate-limiter.js';

/** Anything that maps an Authorization header to the ingestion key it carries (app.ingestionKeys). */
export interface IngestionKeyCheck {
  verify(authorization: string | undefined): Promise<{ keyId: string } | undefined>;
}

/**
 * Authenticates every request of the scope with an ingestion key and applies the key's rate,
 * before the body is read, so refused senders cost no decompression or parsing.
 */
export function installIngestAuth(scope: FastifyInstance, keys: IngestionKeyCheck, limiter: IngestRateLimiter): void {
  scope.addHook('onRequest', async (request) => {
    const authorization = request.headers.authorization;
    const key = await keys.verify(authorization);
    if (!key) {
      const message = authorization
        ? 'The ingestion key is unknown or revoked.'
        : 'Ingestion needs Authorization: Bearer <ingestion key>.';
      throw new ApiError('unauthorized', message, { headers: { 'www-authenticate': 'Bearer' } });
    }
    const decision = await limiter.take(key.keyId);
    if (!decision.allowed) {
      throw new ApiError('rate-limited', 'This ingestion key is sending faster than its configured rate; retry later.', {
        headers: { 'retry-after': String(decision.retryAfterSeconds) },
      });
    }
  });
}

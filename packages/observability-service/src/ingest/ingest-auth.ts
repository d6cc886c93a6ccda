import type { FastifyInstance } from 'fastify';
import { ApiError } from '@playstack/server-kit';
import type { IngestRateLimiter } from './ingest-rate-limiter.js';

/** Anything that maps an Authorization header to the ingestion key it carries (app.ingestionKeys). */
export interface IngestionKeyCheck {
  verify(authorization: string | undefined): Promise<{ keyId: string } | undefined>;
}

/** Checks a request's key and counts it against the key's rate; throws `unauthorized` or `rate-limited`. */
export type IngestAdmission = (authorization: string | undefined) => Promise<void>;

/**
 * The credential a request carries: `Authorization: Bearer <key>` or, for clients configured
 * through `OTEL_EXPORTER_OTLP_HEADERS` that send the header value without percent-decoding it,
 * `Bearer%20<key>`.
 */
export function ingestAuthorization(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  return /^bearer%20/i.test(authorization) ? `Bearer ${authorization.slice('bearer%20'.length)}` : authorization;
}

/** The admission check every ingest transport (protocol v1, OTLP/HTTP, OTLP/gRPC) runs first. */
export function ingestAdmission(keys: IngestionKeyCheck, limiter: IngestRateLimiter): IngestAdmission {
  return async (header) => {
    const authorization = ingestAuthorization(header);
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
  };
}

/**
 * Authenticates every request of the scope with an ingestion key and applies the key's rate,
 * before the body is read, so refused senders cost no decompression or parsing.
 */
export function installIngestAuth(scope: FastifyInstance, admit: IngestAdmission): void {
  scope.addHook('onRequest', async (request) => admit(request.headers.authorization));
}

import type { NotReadyBody } from '@playstack/server-kit';
import { contentTypes, encodingOf } from './otlp-encoding.js';
import { logsHttpPath } from './otlp-logs.js';
import { encodeStatus, otlpStatus } from './otlp-status.js';
import { tracesHttpPath } from './otlp-traces.js';

const otlpHttpPaths = new Set([tracesHttpPath, logsHttpPath]);

/**
 * While the service starts (waiting for its database, migrating), an OTLP/HTTP export is answered
 * as OTLP asks of every failure: the 503 (retryable, Retry-After) carries a google.rpc.Status
 * (UNAVAILABLE, RetryInfo) in the request's encoding, not the JSON error envelope.
 */
export const otlpNotReadyBody: NotReadyBody = (request, error, requestId) => {
  if (request.method !== 'POST' || !otlpHttpPaths.has(request.path)) return undefined;
  const encoding = encodingOf(request.contentType);
  return { contentType: contentTypes[encoding], body: encodeStatus(otlpStatus(error, requestId), encoding) };
};

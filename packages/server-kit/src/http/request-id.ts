import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const validRequestId = /^[A-Za-z0-9._:-]{1,128}$/;

/** Reuses a valid incoming `X-Request-Id`, otherwise generates one. */
export function requestIdFor(request: IncomingMessage): string {
  const incoming = request.headers['x-request-id'];
  return typeof incoming === 'string' && validRequestId.test(incoming) ? incoming : randomUUID();
}

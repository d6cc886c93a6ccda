import type { FastifyRequest } from 'fastify';
import { ApiError } from '../errors/api-error.js';
import { csrfTokenMatches } from './session-manager.js';

/** The header browsers send the session's CSRF token in. */
export const csrfHeaderName = 'x-csrf-token';

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/** True for methods that may change state (everything but GET, HEAD and OPTIONS). */
export function isStateChanging(method: string): boolean {
  return !safeMethods.has(method.toUpperCase());
}

/** The request's own origin as the browser sees it (honours X-Forwarded-* under trust proxy). */
export function requestOrigin(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`.toLowerCase();
}

/**
 * Refuses a request a browser marked as coming from another site: `Sec-Fetch-Site: cross-site`,
 * or an `Origin` that is neither this server's own nor one of `allowedOrigins`. Requests with no
 * such headers (non-browser clients, older browsers) pass; the CSRF token still protects them.
 */
export function assertSameOrigin(request: FastifyRequest, allowedOrigins: readonly string[] = []): void {
  if (request.headers['sec-fetch-site'] === 'cross-site') {
    throw new ApiError('csrf-failed', 'Cross-site requests may not change state.');
  }
  const origin = request.headers.origin;
  if (origin === undefined) return;
  const normalized = origin.toLowerCase();
  if (normalized !== requestOrigin(request) && !allowedOrigins.includes(normalized)) {
    throw new ApiError('csrf-failed', `Requests from origin ${origin} may not change state.`);
  }
}

/**
 * Refuses a state-changing request whose CSRF token is not the session's: the `X-CSRF-Token`
 * header, or `formToken` when given (a hidden field of a server-rendered form).
 */
export function assertCsrfToken(request: FastifyRequest, expectedToken: string, formToken?: string): void {
  const header = request.headers[csrfHeaderName];
  const presented = formToken ?? (Array.isArray(header) ? undefined : header);
  if (!csrfTokenMatches(expectedToken, presented)) {
    throw new ApiError('csrf-failed', `State-changing requests need the session's CSRF token in the X-CSRF-Token header.`);
  }
}

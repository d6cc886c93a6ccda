/**
 * The closed set of error codes both services answer with. Each code has exactly one HTTP
 * status. Add a code here (with a test) rather than inventing one at a call site.
 */
export const errorStatusByCode = {
  'invalid-request': 400,
  'invalid-period': 400,
  'invalid-cursor': 400,
  'invalid-envelope': 400,
  'invalid-manifest': 400,
  unauthorized: 401,
  'invalid-grant': 401,
  'invalid-credentials': 401,
  forbidden: 403,
  'csrf-failed': 403,
  'not-found': 404,
  'game-not-found': 404,
  'board-not-found': 404,
  'adapter-not-found': 404,
  'run-not-found': 404,
  'occurrence-not-found': 404,
  'trace-not-found': 404,
  'error-group-not-found': 404,
  'method-not-allowed': 405,
  'request-timeout': 408,
  conflict: 409,
  'run-id-conflict': 409,
  'already-set-up': 409,
  'payload-too-large': 413,
  'unsupported-media-type': 415,
  'evidence-rejected': 422,
  'rate-limited': 429,
  'headers-too-large': 431,
  'internal-error': 500,
  'provider-error': 502,
  'provider-unavailable': 503,
  'not-ready': 503,
  'storage-unavailable': 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof errorStatusByCode;

export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(errorStatusByCode, value);
}

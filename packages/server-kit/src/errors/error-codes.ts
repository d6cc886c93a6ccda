/**
 * The error codes every service shares: HTTP-level refusals, sign-in and accounts, paging. Each
 * code has exactly one HTTP status. A code only one service answers with is declared by that
 * service, beside the feature that throws it, with {@link defineErrorCodes}.
 */
export const commonErrorStatusByCode = {
  'invalid-request': 400,
  'invalid-cursor': 400,
  unauthorized: 401,
  'invalid-grant': 401,
  'invalid-credentials': 401,
  forbidden: 403,
  'csrf-failed': 403,
  'not-found': 404,
  'method-not-allowed': 405,
  'request-timeout': 408,
  conflict: 409,
  'already-set-up': 409,
  'payload-too-large': 413,
  'unsupported-media-type': 415,
  'rate-limited': 429,
  'headers-too-large': 431,
  'internal-error': 500,
  'not-ready': 503,
} as const satisfies Record<string, number>;

/**
 * The codes services declare for their own features, each with its status. A service adds to it
 * by declaration merging, in the file that also registers the statuses:
 *
 *     const runErrorCodes = defineErrorCodes({ 'run-id-conflict': 409 });
 *     declare module '@playstack/server-kit' {
 *       interface ServiceErrorCodes extends Readonly<typeof runErrorCodes> {}
 *     }
 */
// Empty here by design: the services fill it.
export interface ServiceErrorCodes {}

/** The closed set of codes: the common ones and every service's own. */
export type ErrorCode = keyof typeof commonErrorStatusByCode | keyof ServiceErrorCodes;

const statusByCode = new Map<string, number>(Object.entries(commonErrorStatusByCode));

/**
 * Registers a feature's own error codes and their statuses, and returns them. A code keeps one
 * status: registering it again with another status, or redefining a common code, throws.
 */
export function defineErrorCodes<const Codes extends Record<string, number>>(codes: Codes): Codes {
  for (const [code, status] of Object.entries(codes)) {
    if (!/^[a-z]+(-[a-z]+)*$/.test(code)) throw new Error(`error code ${code} is not kebab-case`);
    const known = statusByCode.get(code);
    if (Object.hasOwn(commonErrorStatusByCode, code) || (known !== undefined && known !== status)) {
      throw new Error(`error code ${code} is defined already (status ${known})`);
    }
    statusByCode.set(code, status);
  }
  return Object.freeze({ ...codes });
}

/** The HTTP status of a code; throws for a code nobody registered (a programming error). */
export function errorStatusOf(code: ErrorCode): number {
  const status = statusByCode.get(code);
  if (status === undefined) throw new Error(`unknown error code ${code}: declare it with defineErrorCodes beside the feature that throws it`);
  return status;
}

export function isErrorCode(value: string): value is ErrorCode {
  return statusByCode.has(value);
}

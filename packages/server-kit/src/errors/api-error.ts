import { errorStatusOf, type ErrorCode } from './error-codes.js';

/** The one error type routes and logic throw; the error handler turns it into the envelope. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly statusCode: number;
  /** Extra response headers, e.g. `Retry-After` for `rate-limited`. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: ErrorCode, message: string, options: { headers?: Record<string, string>; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ApiError';
    this.code = code;
    this.statusCode = errorStatusOf(code);
    this.headers = Object.freeze({ ...(options.headers ?? {}) });
  }
}

/** The body every non-2xx JSON response carries. */
export interface ErrorBody {
  error: { code: ErrorCode; message: string; requestId: string };
}

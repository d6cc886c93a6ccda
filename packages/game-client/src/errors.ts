/** The service answered with an error envelope (or at least a non-2xx status). */
export class GameServiceError extends Error {
  override readonly name = 'GameServiceError';
  constructor(
    readonly status: number,
    /** The envelope's kebab-case code; `http-<status>` when the body was not an envelope. */
    readonly code: string,
    message: string,
    readonly requestId: string | undefined,
    /** From `Retry-After`, when the service sent one. */
    readonly retryAfterMs: number | undefined,
  ) {
    super(message);
  }
}

/** The service could not be reached, the connection broke, or it did not answer in time. */
export class NetworkError extends Error {
  override readonly name = 'NetworkError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** The call needs a signed-in player and there is none (never signed in, logged out, session ended). */
export class SignedOutError extends Error {
  override readonly name = 'SignedOutError';
  constructor(message = 'no player is signed in') {
    super(message);
  }
}

/** `submitRun` refused the run; it was not queued. */
export class RunNotQueuedError extends Error {
  override readonly name = 'RunNotQueuedError';
}

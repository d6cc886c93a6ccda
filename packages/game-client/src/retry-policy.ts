/** How long to wait before retrying a run after a retryable failure. */
export interface BackoffOptions {
  /** Delay after the first failure. */
  baseDelayMs: number;
  /** Upper bound of the exponential part. */
  maxDelayMs: number;
  /** Upper bound applied to a server's `Retry-After`, so a bad header cannot park the queue for days. */
  maxRetryAfterMs: number;
}

export const defaultBackoff: BackoffOptions = { baseDelayMs: 1_000, maxDelayMs: 5 * 60_000, maxRetryAfterMs: 60 * 60_000 };

/**
 * Capped exponential backoff with "equal jitter": half of the window is fixed, half random, so
 * clients that failed together spread out but none retries immediately. A `Retry-After` from
 * the service is a floor: never retry earlier than it asked.
 */
export function retryDelayMs(
  attempts: number,
  retryAfterMs: number | undefined,
  options: BackoffOptions,
  random: () => number,
): number {
  const exponential = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** Math.max(0, attempts - 1));
  const jittered = Math.round(exponential / 2 + random() * (exponential / 2));
  if (retryAfterMs === undefined) return jittered;
  return Math.max(Math.min(retryAfterMs, options.maxRetryAfterMs), jittered);
}

/** Parses `Retry-After`: delta seconds or an HTTP date. Undefined when absent or unreadable. */
export function parseRetryAfterMs(header: string | null, nowMs: number): number | undefined {
  if (header === null) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // HTTP dates name the day or month; without a letter, Date.parse would read "-5" as a year.
  if (!/[A-Za-z]/.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

/**
 * Whether a failed status is worth retrying: the service was overloaded, down or rate limiting.
 * 408 is a timeout of the request itself, not a judgement of its content. Every other 4xx is a
 * verdict on the run that sending it again cannot change.
 */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

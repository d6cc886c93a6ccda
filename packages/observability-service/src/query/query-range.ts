import { ApiError } from '@playstack/server-kit';

/** The range every read endpoint covers when `from` and `to` are absent. */
export const defaultRangeMs = 24 * 60 * 60 * 1000;

/** A resolved query range in epoch milliseconds: `fromMs` inclusive, `toMs` exclusive. */
export interface QueryRange {
  readonly fromMs: number;
  readonly toMs: number;
}

/** The `service` / `environment` filters, meaning the same on every endpoint. */
export interface QueryFilters {
  readonly service?: string | undefined;
  readonly environment?: string | undefined;
}

// A calendar date (midnight UTC), or a date-time that names its offset: a time without a zone
// would silently depend on the server's time zone.
const isoDate = /^(\d{4})-(\d{2})-(\d{2})$/;
const isoDateTime = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

/** Parses an ISO 8601 date or zoned date-time into epoch milliseconds; 400 naming `field` otherwise. */
export function parseIsoTimestamp(value: string, field: string): number {
  const date = isoDate.exec(value);
  const dateTime = date ? undefined : isoDateTime.exec(value);
  const parts = date ?? dateTime;
  const ms = parts ? Date.parse(date ? `${value}T00:00:00Z` : value) : Number.NaN;
  if (!parts || Number.isNaN(ms) || !isRealDate(Number(parts[1]), Number(parts[2]), Number(parts[3]))) {
    throw new ApiError('invalid-request', `${field} must be an ISO 8601 timestamp with a time zone, e.g. 2026-11-21T10:00:00Z (got "${value}").`);
  }
  return ms;
}

// Date.parse rolls 2026-02-30 over to March; a date that does not exist is a typo, not a range.
function isRealDate(year: number, month: number, day: number): boolean {
  const probe = new Date(Date.UTC(year, month - 1, day));
  return probe.getUTCFullYear() === year && probe.getUTCMonth() === month - 1 && probe.getUTCDate() === day;
}

/**
 * Resolves `from`/`to` against the clock: both absent is the last 24 hours; `to` alone is the
 * 24 hours before it; `from` alone runs up to now. A reversed range is a 400.
 */
export function resolveQueryRange(query: { from?: string | undefined; to?: string | undefined }, nowMs: number): QueryRange {
  const toGiven = query.to === undefined ? undefined : parseIsoTimestamp(query.to, 'to');
  const fromGiven = query.from === undefined ? undefined : parseIsoTimestamp(query.from, 'from');
  const toMs = toGiven ?? (fromGiven === undefined ? nowMs : Math.max(nowMs, fromGiven));
  const fromMs = fromGiven ?? toMs - defaultRangeMs;
  if (fromMs > toMs) throw new ApiError('invalid-request', `from (${new Date(fromMs).toISOString()}) must not be after to (${new Date(toMs).toISOString()}).`);
  return { fromMs, toMs };
}

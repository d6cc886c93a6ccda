import type { Kysely } from 'kysely';
import type { Database } from '@playstack/server-kit';
import type { TelemetryDatabase } from '../storage/storage-tables.js';
import { resolveQueryRange, type QueryFilters, type QueryRange } from './query-range.js';
import type { DirtyMinutes, RollupReader } from './rollup-aggregate.js';

/** What every SQL read view receives: where to read, the resolved range and the filters. */
export interface ReadQuery extends TelemetryRead {
  readonly db: Kysely<TelemetryDatabase>;
  readonly dialect: Database['dialect'];
  /** The minutes the tiers have not caught up with, looked up once per request (on first use). */
  readonly dirtyMinutes: DirtyMinutes;
  /** The rollups (per-minute tables and tiers) over `db`, for the figure views. */
  readonly rollups: RollupReader;
}

/** What a telemetry read covers: the resolved range and the service / environment filters. */
export interface TelemetryRead {
  readonly range: QueryRange;
  readonly filters: QueryFilters;
}

/** Parses the shared parameters once per request (a bad range is a 400). */
export function telemetryReadOf(
  nowMs: number,
  query: { from?: string | undefined; to?: string | undefined; service?: string | undefined; environment?: string | undefined },
): TelemetryRead {
  return { range: resolveQueryRange(query, nowMs), filters: { service: query.service, environment: query.environment } };
}

/** The range as the responses echo it. */
export function rangeEcho(range: QueryRange): { from: string; to: string } {
  return { from: new Date(range.fromMs).toISOString(), to: new Date(range.toMs).toISOString() };
}

/** Orders text by UTF-16 code units, as responses are sorted whatever the database's collation. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function errorRateOf(count: number, errorCount: number): number {
  return count === 0 ? 0 : errorCount / count;
}

import type { Kysely } from 'kysely';
import type { Database } from '@playstack/server-kit';
import type { IngestionTables } from '../storage/storage-tables.js';
import { resolveQueryRange, type QueryFilters, type QueryRange } from './query-range.js';
import type { DirtyMinutes } from './rollup-aggregate.js';
import { dirtyMinutesNow } from './tier-watermark.js';

/** What every read view receives: where to read, the resolved range and the filters. */
export interface ReadQuery {
  readonly db: Kysely<IngestionTables>;
  readonly dialect: Database['dialect'];
  readonly range: QueryRange;
  readonly filters: QueryFilters;
  /** The minutes the tiers have not caught up with, looked up once per request (on first use). */
  readonly dirtyMinutes: DirtyMinutes;
}

/** The service database seen through the ingestion tables the views read. */
export function ingestionDb(database: Database): Kysely<IngestionTables> {
  return database.db as Kysely<IngestionTables>;
}

/** Parses the shared parameters once per request. */
export function readQueryOf(
  database: Database,
  nowMs: number,
  query: { from?: string | undefined; to?: string | undefined; service?: string | undefined; environment?: string | undefined },
): ReadQuery {
  const db = ingestionDb(database);
  let dirty: ReturnType<DirtyMinutes> | undefined;
  return {
    db,
    dialect: database.dialect,
    range: resolveQueryRange(query, nowMs),
    filters: { service: query.service, environment: query.environment },
    dirtyMinutes: () => (dirty ??= dirtyMinutesNow(db)),
  };
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

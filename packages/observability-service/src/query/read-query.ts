import type { Kysely } from 'kysely';
import type { Database } from '@playstack/server-kit';
import type { IngestionTables } from '../storage/storage-tables.js';
import { resolveQueryRange, type QueryFilters, type QueryRange } from './query-range.js';

/** What every read view receives: where to read, the resolved range and the filters. */
export interface ReadQuery {
  readonly db: Kysely<IngestionTables>;
  readonly dialect: Database['dialect'];
  readonly range: QueryRange;
  readonly filters: QueryFilters;
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
  return {
    db: ingestionDb(database),
    dialect: database.dialect,
    range: resolveQueryRange(query, nowMs),
    filters: { service: query.service, environment: query.environment },
  };
}

/** The range as the responses echo it. */
export function rangeEcho(range: QueryRange): { from: string; to: string } {
  return { from: new Date(range.fromMs).toISOString(), to: new Date(range.toMs).toISOString() };
}

export function errorRateOf(count: number, errorCount: number): number {
  return count === 0 ? 0 : errorCount / count;
}

import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Dialect } from '@playstack/server-kit';
import type { IngestionTables } from '../storage/storage-tables.js';
import type { QueryRange } from './query-range.js';

const minuteMs = 60_000;

export type RollupTable = 'operation_rollups' | 'tenant_rollups' | 'statement_rollups' | 'dependency_rollups';

/** A condition on a rollup table's columns; the conditions of one query are ANDed. */
export type RollupCondition = RawBuilder<unknown>;

/** `column = value`, or no condition when the filter was not given. */
export function columnEquals(column: string, value: string | undefined): RollupCondition[] {
  return value === undefined ? [] : [sql`${sql.ref(column)} = ${value}`];
}

export interface RollupAggregateQuery {
  table: RollupTable;
  range: QueryRange;
  where?: RollupCondition[];
  /** Key columns to group by, returned under their own names. */
  groupBy?: readonly string[];
  /** Also group into time buckets of this many milliseconds (aligned to the epoch). */
  bucketMs?: number;
  /** Fetch the merged histogram text (costs a string per group; leave off for counts only). */
  withHistogram?: boolean;
  /** Extra aggregate columns, e.g. `max(statement) as statement`. */
  extraSelect?: RawBuilder<unknown>[];
}

/** One group of rollup rows, summed. */
export interface RollupAggregate {
  keys: Record<string, string | null>;
  /** Start of the time bucket, when the query asked for buckets. */
  bucketStartMs: number;
  count: number;
  errorCount: number;
  durationSumMs: number;
  durationMaxMs: number;
  /** The group's histograms joined with commas; feed to `MergedHistogram.add`. */
  histogram: string | null;
  extra: Record<string, unknown>;
}

/**
 * Rollup rows are per whole minute, so a rollup view counts a minute when any part of it lies
 * in the range: the minutes starting in (from - 1 min, to).
 */
export function rollupMinuteBounds(range: QueryRange): { firstMinuteMs: number; endMinuteMs: number } {
  return { firstMinuteMs: Math.floor(range.fromMs / minuteMs) * minuteMs, endMinuteMs: Math.ceil(range.toMs / minuteMs) * minuteMs };
}

/**
 * Sums a rollup table's rows over a range, grouped by key columns and optionally time buckets,
 * in one SQL statement. Histograms are concatenated by the database and merged by the caller.
 */
export async function aggregateRollups(db: Kysely<IngestionTables>, dialect: Dialect, query: RollupAggregateQuery): Promise<RollupAggregate[]> {
  const groupBy = query.groupBy ?? [];
  const { firstMinuteMs, endMinuteMs } = rollupMinuteBounds(query.range);
  if (endMinuteMs <= firstMinuteMs) return [];
  const bucket = query.bucketMs === undefined ? sql`0` : sql`(minute - (minute % ${sql.lit(query.bucketMs)}))`;
  const histogram = !query.withHistogram
    ? sql`null`
    : dialect === 'postgres'
      ? sql`string_agg(nullif(histogram, ''), ',')`
      : sql`group_concat(nullif(histogram, ''), ',')`;
  const conditions = [sql`minute >= ${firstMinuteMs}`, sql`minute < ${endMinuteMs}`, ...(query.where ?? [])];
  const groupColumns = [...groupBy.map((column) => sql.ref(column)), ...(query.bucketMs === undefined ? [] : [sql.ref('bucket_start')])];
  const selectKeys = groupBy.map((column) => sql`${sql.ref(column)}`);
  const result = await sql<Record<string, unknown>>`
    select ${sql.join([
      ...selectKeys,
      sql`${bucket} as bucket_start`,
      sql`sum(count) as count`,
      sql`sum(error_count) as error_count`,
      sql`sum(duration_sum_ms) as duration_sum_ms`,
      sql`max(duration_max_ms) as duration_max_ms`,
      sql`${histogram} as histogram`,
      ...(query.extraSelect ?? []),
    ])}
    from ${sql.table(query.table)}
    where ${sql.join(conditions, sql` and `)}
    ${groupColumns.length > 0 ? sql`group by ${sql.join(groupColumns)}` : sql``}
  `.execute(db);
  const reserved = new Set([...groupBy, 'bucket_start', 'count', 'error_count', 'duration_sum_ms', 'duration_max_ms', 'histogram']);
  return result.rows
    .filter((row) => row.count !== null)
    .map((row) => ({
      keys: Object.fromEntries(groupBy.map((column) => [column, row[column] === null ? null : String(row[column])])),
      bucketStartMs: Number(row.bucket_start),
      count: Number(row.count),
      errorCount: Number(row.error_count),
      durationSumMs: Number(row.duration_sum_ms),
      durationMaxMs: Number(row.duration_max_ms),
      histogram: (row.histogram as string | null) ?? null,
      extra: Object.fromEntries(Object.entries(row).filter(([name]) => !reserved.has(name))),
    }));
}

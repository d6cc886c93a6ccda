import type { ClickHouseClient } from '@clickhouse/client';
import { rollupMinuteBounds, type RollupAggregate, type RollupAggregateQuery } from '../../query/rollup-aggregate.js';
import { numberLiteral, sentDouble, stringArrayLiteral, stringLiteral } from './clickhouse-literal.js';
import { dayOf } from './clickhouse-writer.js';

/** The rollups the ClickHouse store keeps (materialized views over `occurrences`). */
export const clickHouseRollupTables = ['operation_rollups', 'tenant_rollups', 'statement_rollups'] as const;
export type ClickHouseRollupTable = (typeof clickHouseRollupTables)[number];

/** What a rollup read asks: the SQL store's `RollupAggregateQuery` less its SQL-only parts (tiers, raw conditions). */
export type ClickHouseRollupQuery = Omit<RollupAggregateQuery, 'table' | 'tiers' | 'where'> & {
  table: ClickHouseRollupTable;
  /** Key columns that must be one of these values. */
  oneOf?: Readonly<Record<string, readonly string[]>>;
};

const identifier = /^[a-z_]+$/;

function column(name: string): string {
  if (!identifier.test(name)) throw new Error(`not a rollup column: ${name}`);
  return name;
}

/** `index:count` pairs joined by commas, as the SQL rollups store histograms (storage/latency-histogram.ts). */
export function histogramText(state: [Array<number | string>, Array<number | string>] | undefined): string | null {
  if (!state || state[0].length === 0) return null;
  return state[0].map((index, i) => `${index}:${state[1][i]}`).join(',');
}

/**
 * Sums a rollup's states over a range, grouped by key columns and optionally time buckets: the
 * ClickHouse counterpart of `aggregateRollups` (query/rollup-aggregate.ts), same minutes counted
 * (any part in the range), same figures, histograms in the same encoding.
 */
export async function aggregateClickHouseRollups(client: ClickHouseClient, database: string, query: ClickHouseRollupQuery): Promise<RollupAggregate[]> {
  const { firstMinuteMs, endMinuteMs } = rollupMinuteBounds(query.range);
  if (endMinuteMs <= firstMinuteMs) return [];
  const groupBy = (query.groupBy ?? []).map(column);
  const conditions = [
    `day >= toDate(${stringLiteral(dayOf(firstMinuteMs))})`,
    `day <= toDate(${stringLiteral(dayOf(endMinuteMs - 1))})`,
    `minute >= ${numberLiteral(firstMinuteMs)}`,
    `minute < ${numberLiteral(endMinuteMs)}`,
  ];
  for (const [name, value] of Object.entries(query.equals ?? {})) {
    if (value !== undefined) conditions.push(`${column(name)} = ${stringLiteral(value)}`);
  }
  for (const [name, values] of Object.entries(query.oneOf ?? {})) conditions.push(`has(${stringArrayLiteral(values)}, ${column(name)})`);
  const bucket = query.bucketMs === undefined ? 'toUInt64(0)' : `minute - (minute % ${Math.floor(query.bucketMs)})`;
  const extra = (query.extraColumns ?? []).map(column);
  const select = [
    ...groupBy,
    `${bucket} AS bucket_start`,
    'countMerge(count) AS n',
    'sumMerge(error_count) AS errors',
    'sumMerge(duration_sum_ms) AS duration_sum',
    'maxMerge(duration_max_ms) AS duration_max',
    query.withHistogram ? 'sumMapMerge(histogram) AS hist' : 'NULL AS hist',
    query.withErrorHistogram ? 'sumMapMerge(error_histogram) AS error_hist' : 'NULL AS error_hist',
    ...extra.map((name) => `anyMerge(${name}) AS extra_${name}`),
  ];
  const sql = `SELECT ${select.join(', ')} FROM ${database}.${column(query.table)} WHERE ${conditions.join(' AND ')} GROUP BY ${[...groupBy, 'bucket_start'].join(', ')}`;
  const result = await client.query({ query: sql, format: 'JSONEachRow' });
  const rows = await result.json<Record<string, unknown>>();
  return rows.map((row) => ({
    keys: Object.fromEntries(groupBy.map((name) => [name, String(row[name])])),
    bucketStartMs: Number(row.bucket_start),
    count: Number(row.n),
    errorCount: Number(row.errors),
    durationSumMs: sentDouble(row.duration_sum as number),
    durationMaxMs: sentDouble(row.duration_max as number),
    histogram: histogramText(row.hist as never),
    errorHistogram: histogramText(row.error_hist as never),
    // Rollups keep no NULL in their states ('' stands for it: clickhouse-migrations.ts).
    extra: Object.fromEntries(extra.map((name) => [name, row[`extra_${name}`] === null || row[`extra_${name}`] === '' ? null : String(row[`extra_${name}`])])),
  }));
}

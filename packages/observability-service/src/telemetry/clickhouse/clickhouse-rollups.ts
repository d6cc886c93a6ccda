import type { ClickHouseClient } from '@clickhouse/client';
import { rollupMinuteBounds, type RollupAggregate, type RollupAggregateQuery } from '../../query/rollup-aggregate.js';
import { numberLiteral, sentDouble, stringLiteral } from './clickhouse-literal.js';
import { dayOf } from './clickhouse-writer.js';
import { clickHouseTierHistogramTables, clickHouseTierSizesMs } from './clickhouse-migrations.js';
import { minuteMs } from '../../time-units.js';

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

/** A result row's group: its grouped columns' values and output bucket, as JSON. */
function groupKeyOf(groupBy: readonly string[], row: Record<string, unknown>): string {
  return JSON.stringify([...groupBy.map((name) => String(row[name])), String(row.bucket_start)]);
}

/**
 * The histograms of a tier's groups from its histogram rows (clickhouse-migrations.ts), in the
 * encoding the states give (`histogramText`, buckets in ascending order): of every span, and of
 * the failed ones (null where none failed), by group (`groupKeyOf`). Read beside the figures,
 * under the same conditions.
 */
async function histogramsOf(
  client: ClickHouseClient,
  table: string,
  groupBy: readonly string[],
  bucket: string,
  where: string,
): Promise<Map<string, { all: string | null; failed: string | null }>> {
  const result = await client.query({
    query: `SELECT ${[...groupBy, `${bucket} AS bucket_start`].join(', ')}, latency_bucket, sum(count) AS n, sum(error_count) AS failed
      FROM ${table} WHERE ${where} GROUP BY ${[...groupBy, 'bucket_start', 'latency_bucket'].join(', ')} ORDER BY latency_bucket`,
    format: 'JSONEachRow',
  });
  const parts = new Map<string, { all: string[]; failed: string[] }>();
  for (const row of await result.json<Record<string, unknown>>()) {
    const key = groupKeyOf(groupBy, row);
    let group = parts.get(key);
    if (!group) parts.set(key, (group = { all: [], failed: [] }));
    const index = String(row.latency_bucket);
    if (Number(row.n) > 0) group.all.push(`${index}:${row.n}`);
    if (Number(row.failed) > 0) group.failed.push(`${index}:${row.failed}`);
  }
  return new Map([...parts].map(([key, group]) => [key, { all: group.all.length > 0 ? group.all.join(',') : null, failed: group.failed.length > 0 ? group.failed.join(',') : null }]));
}

/** The tier tables (clickhouse-migrations.ts): the rollups' figures in 1-minute, 15-minute, hourly and daily buckets. */
export const clickHouseTierTables = ['service_tiers', 'operation_tiers', 'tenant_tiers', 'statement_tiers'] as const;

/** A tier a rollup is read from: its table, its key, and the table of its histograms as rows, if it has one. */
interface Tier {
  table: (typeof clickHouseTierTables)[number];
  keyColumns: readonly string[];
  histograms?: (typeof clickHouseTierHistogramTables)[number];
}

/** Each rollup's tiers, coarsest key first: a read uses the first whose key has every column it filters or groups by. */
const tiersOf: Readonly<Record<ClickHouseRollupTable, readonly Tier[]>> = {
  operation_rollups: [
    { table: 'service_tiers', keyColumns: ['service', 'environment', 'span_role'], histograms: 'service_tier_histograms' },
    { table: 'operation_tiers', keyColumns: ['service', 'environment', 'span_role', 'operation', 'kind'], histograms: 'operation_tier_histograms' },
  ],
  tenant_rollups: [{ table: 'tenant_tiers', keyColumns: ['tenant_id', 'service', 'environment'] }],
  statement_rollups: [{ table: 'statement_tiers', keyColumns: ['service', 'environment', 'db_system', 'statement_hash'] }],
};

/** A run of consecutive buckets of one size (a tier's, or minutes) that a read covers. */
export interface RollupSpan {
  sizeMs: number;
  fromMs: number;
  toMs: number;
}

/**
 * Covers the minutes [firstMinuteMs, endMinuteMs) with the coarsest buckets that lie inside it
 * and, for bucketed reads, inside one output bucket (the tier size divides `bucketMs`): minutes
 * only at the ragged ends. Adjacent buckets of one size are joined into one span.
 */
export function planRollupSpans(firstMinuteMs: number, endMinuteMs: number, bucketMs: number | undefined): RollupSpan[] {
  const sizes = [...clickHouseTierSizesMs].reverse().filter((size) => size === minuteMs || bucketMs === undefined || bucketMs % size === 0);
  const spans: RollupSpan[] = [];
  let at = firstMinuteMs;
  while (at < endMinuteMs) {
    const sizeMs = sizes.find((size) => at % size === 0 && at + size <= endMinuteMs) ?? minuteMs;
    const last = spans[spans.length - 1];
    if (last && last.sizeMs === sizeMs && last.toMs === at) last.toMs = at + sizeMs;
    else spans.push({ sizeMs, fromMs: at, toMs: at + sizeMs });
    at += sizeMs;
  }
  return spans;
}

function spanConditions(spans: readonly RollupSpan[]): string {
  return `(${spans.map((span) => `(tier_ms = ${span.sizeMs} AND bucket >= ${numberLiteral(span.fromMs)} AND bucket < ${numberLiteral(span.toMs)})`).join(' OR ')})`;
}

/**
 * Sums a rollup's states over a range, grouped by key columns and optionally time buckets: the
 * ClickHouse counterpart of `aggregateRollups` (query/rollup-aggregate.ts), same minutes counted
 * (any part in the range), same figures, histograms in the same encoding. The range is read from
 * the coarsest tier that answers each part of it exactly (`planRollupSpans`), at the coarsest key
 * that has the columns asked for.
 */
export async function aggregateClickHouseRollups(client: ClickHouseClient, database: string, query: ClickHouseRollupQuery): Promise<RollupAggregate[]> {
  const { firstMinuteMs, endMinuteMs } = rollupMinuteBounds(query.range);
  if (endMinuteMs <= firstMinuteMs) return [];
  const groupBy = (query.groupBy ?? []).map(column);
  const keyConditions: string[] = [];
  const named = new Set(groupBy);
  for (const [name, value] of Object.entries(query.equals ?? {})) {
    if (value === undefined) continue;
    keyConditions.push(`${column(name)} = ${stringLiteral(value)}`);
    named.add(name);
  }
  for (const [name, values] of Object.entries(query.oneOf ?? {})) {
    // IN, not has(): the primary key narrows the granules read by IN only.
    keyConditions.push(values.length === 0 ? '0' : `${column(name)} IN (${[...new Set(values)].map(stringLiteral).join(', ')})`);
    named.add(name);
  }
  const tier = tiersOf[query.table].find((candidate) => [...named].every((name) => candidate.keyColumns.includes(name)));
  if (tier === undefined) throw new Error(`no tier of ${query.table} has every column of ${[...named].join(', ')}`);
  const extra = (query.extraColumns ?? []).map(column);
  const bucket = query.bucketMs === undefined ? 'toUInt64(0)' : `toUInt64(bucket - (bucket % ${Math.floor(query.bucketMs)}))`;
  const conditions = [
    `day >= toDate(${stringLiteral(dayOf(firstMinuteMs))})`,
    `day <= toDate(${stringLiteral(dayOf(endMinuteMs - 1))})`,
    spanConditions(planRollupSpans(firstMinuteMs, endMinuteMs, query.bucketMs)),
    ...keyConditions,
  ];
  // Histograms from the tier's rows of them where it has those, else from its states.
  const histogramRows = tier.histograms !== undefined && (query.withHistogram === true || query.withErrorHistogram === true);
  const select = [
    ...groupBy,
    `${bucket} AS bucket_start`,
    'countMerge(count) AS n',
    'sumMerge(error_count) AS errors',
    'sumMerge(duration_sum_ms) AS duration_sum',
    'maxMerge(duration_max_ms) AS duration_max',
    query.withHistogram && !histogramRows ? 'sumMapMerge(histogram) AS hist' : 'NULL AS hist',
    query.withErrorHistogram && !histogramRows ? 'sumMapMerge(error_histogram) AS error_hist' : 'NULL AS error_hist',
    ...extra.map((name) => `anyMerge(${name}) AS extra_${name}`),
  ];
  const where = conditions.join(' AND ');
  const sql = `SELECT ${select.join(', ')} FROM ${database}.${tier.table} WHERE ${where} GROUP BY ${[...groupBy, 'bucket_start'].join(', ')}`;
  const [rows, histograms] = await Promise.all([
    client.query({ query: sql, format: 'JSONEachRow' }).then((result) => result.json<Record<string, unknown>>()),
    histogramRows ? histogramsOf(client, `${database}.${tier.histograms}`, groupBy, bucket, where) : undefined,
  ]);
  return rows.map((row) => {
    const rowsOfHistograms = histograms?.get(groupKeyOf(groupBy, row));
    return {
      keys: Object.fromEntries(groupBy.map((name) => [name, String(row[name])])),
      bucketStartMs: Number(row.bucket_start),
      count: Number(row.n),
      errorCount: Number(row.errors),
      durationSumMs: sentDouble(row.duration_sum as number),
      durationMaxMs: sentDouble(row.duration_max as number),
      // From the histogram rows where the tier has them, else from the states.
      histogram: !query.withHistogram ? null : histograms ? (rowsOfHistograms?.all ?? null) : histogramText(row.hist as never),
      errorHistogram: !query.withErrorHistogram ? null : histograms ? (rowsOfHistograms?.failed ?? null) : histogramText(row.error_hist as never),
      // Rollups keep no NULL in their states ('' stands for it: clickhouse-migrations.ts).
      extra: Object.fromEntries(extra.map((name) => [name, row[`extra_${name}`] === null || row[`extra_${name}`] === '' ? null : String(row[`extra_${name}`])])),
    };
  });
}

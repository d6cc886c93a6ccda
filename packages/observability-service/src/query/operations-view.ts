import { sql } from 'kysely';
import { rollupMinuteBounds } from './rollup-aggregate.js';
import { MergedHistogram } from './latency-percentiles.js';
import { errorRateOf, rangeEcho, type ReadQuery } from './read-query.js';
import type { OperationsResponse } from './query-schemas.js';

interface OperationKey {
  service: string;
  environment: string;
  operation: string;
  kind: string;
}

interface OperationCounts extends OperationKey {
  count: number;
  errorCount: number;
}

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const keyOf = (row: OperationKey) => JSON.stringify([row.service, row.environment, row.operation, row.kind]);

/**
 * The busiest operations: count, errors and p50/p95/p99 per service, environment, operation
 * and kind.
 *
 * The rollup tiers are keyed by service and environment only, so this reads the per-minute
 * operation rollups. They are written in the same transaction as the raw rows, so the figures
 * are exact whether or not the tier compactor has caught up. Two statements: the counts of every
 * operation (no histogram text), then the histograms of the `limit` busiest only.
 */
export async function operationsView(query: ReadQuery, limit: number): Promise<OperationsResponse> {
  const { db, dialect, range, filters } = query;
  const { firstMinuteMs, endMinuteMs } = rollupMinuteBounds(range);
  if (endMinuteMs <= firstMinuteMs) return { ...rangeEcho(range), operations: [] };

  let counts = db
    .selectFrom('operation_rollups')
    .select((eb) => ['service', 'environment', 'operation', 'kind', eb.fn.sum<number>('count').as('count'), eb.fn.sum<number>('error_count').as('errorCount')])
    .where('minute', '>=', firstMinuteMs)
    .where('minute', '<', endMinuteMs)
    .groupBy(['service', 'environment', 'operation', 'kind']);
  if (filters.service !== undefined) counts = counts.where('service', '=', filters.service);
  if (filters.environment !== undefined) counts = counts.where('environment', '=', filters.environment);
  const top: OperationCounts[] = (await counts.execute())
    .map((row) => ({ ...row, count: Number(row.count), errorCount: Number(row.errorCount) }))
    // In JavaScript: SQL text ordering depends on the database's collation.
    .sort(
      (a, b) =>
        b.count - a.count ||
        compareText(a.operation, b.operation) ||
        compareText(a.service, b.service) ||
        compareText(a.environment, b.environment) ||
        compareText(a.kind, b.kind),
    )
    .slice(0, limit);
  if (top.length === 0) return { ...rangeEcho(range), operations: [] };

  const histogramAggregate = dialect === 'postgres' ? sql<string | null>`string_agg(nullif(histogram, ''), ',')` : sql<string | null>`group_concat(nullif(histogram, ''), ',')`;
  const distinct = (values: string[]) => [...new Set(values)];
  let histograms = db
    .selectFrom('operation_rollups')
    .select(['service', 'environment', 'operation', 'kind', histogramAggregate.as('histogram')])
    .where('minute', '>=', firstMinuteMs)
    .where('minute', '<', endMinuteMs)
    .where('operation', 'in', distinct(top.map((row) => row.operation)))
    .where('service', 'in', distinct(top.map((row) => row.service)))
    .groupBy(['service', 'environment', 'operation', 'kind']);
  if (filters.environment !== undefined) histograms = histograms.where('environment', '=', filters.environment);
  const histogramByKey = new Map<string, string | null>();
  for (const row of await histograms.execute()) histogramByKey.set(keyOf(row), row.histogram);

  return {
    ...rangeEcho(range),
    operations: top.map((row) => ({
      service: row.service,
      environment: row.environment,
      operation: row.operation,
      kind: row.kind,
      count: row.count,
      errorCount: row.errorCount,
      errorRate: errorRateOf(row.count, row.errorCount),
      ...new MergedHistogram().add(histogramByKey.get(keyOf(row))).percentiles(),
    })),
  };
}

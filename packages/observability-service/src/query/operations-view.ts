import { aggregateRollups, inList, type RollupAggregate } from './rollup-aggregate.js';
import { MergedHistogram } from './latency-percentiles.js';
import { compareText, errorRateOf, rangeEcho, type ReadQuery } from './read-query.js';
import { operationTiers } from './rollup-tiers.js';
import type { OperationsResponse } from './query-schemas.js';

const keyColumns = ['service', 'environment', 'operation', 'kind'] as const;

const keyOf = (group: RollupAggregate) => JSON.stringify(keyColumns.map((column) => group.keys[column]));

/**
 * The busiest operations: count, errors and p50/p95/p99 per service, environment, operation
 * and kind, from the operation tiers (per-minute rollups for the minutes they have not caught up
 * with, as every rollup view). Two reads: the counts of every operation, without histogram text,
 * then the histograms of the `limit` busiest only.
 */
export async function operationsView(query: ReadQuery, limit: number): Promise<OperationsResponse> {
  const { range, filters } = query;
  const base = {
    table: 'operation_rollups',
    tiers: operationTiers,
    range,
    equals: { service: filters.service, environment: filters.environment },
    groupBy: keyColumns,
  } as const;
  const top = (await aggregateRollups(query, base))
    // In JavaScript: SQL text ordering depends on the database's collation.
    .sort(
      (a, b) =>
        b.count - a.count ||
        compareText(a.keys.operation!, b.keys.operation!) ||
        compareText(a.keys.service!, b.keys.service!) ||
        compareText(a.keys.environment!, b.keys.environment!) ||
        compareText(a.keys.kind!, b.keys.kind!),
    )
    .slice(0, limit);
  if (top.length === 0) return { ...rangeEcho(range), operations: [] };

  const withHistograms = await aggregateRollups(query, {
    ...base,
    withHistogram: true,
    where: [inList('service', top.map((group) => group.keys.service!)), inList('operation', top.map((group) => group.keys.operation!))],
  });
  const histogramByKey = new Map(withHistograms.map((group) => [keyOf(group), group.histogram]));

  return {
    ...rangeEcho(range),
    operations: top.map((group) => ({
      service: group.keys.service!,
      environment: group.keys.environment!,
      operation: group.keys.operation!,
      kind: group.keys.kind!,
      count: group.count,
      errorCount: group.errorCount,
      errorRate: errorRateOf(group.count, group.errorCount),
      ...new MergedHistogram().add(histogramByKey.get(keyOf(group))).percentiles(),
    })),
  };
}

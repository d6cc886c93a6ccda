import { aggregateRollups, distinctRollupKeys } from '../query/rollup-aggregate.js';
import { roundMs } from '../query/latency-percentiles.js';
import type { QueryRange } from '../query/query-range.js';
import { compareText, rangeEcho, type ReadQuery } from '../query/read-query.js';
import { dayMs } from '../time-units.js';
import { fillBuckets, trendBucketsFor, trendIntervalsMs, type TrendInterval } from '../query/trend-interval.js';
import type { UsageExportRow, UsageResponse, UsageTrendResponse } from './usage-schemas.js';

function usageFilters(query: ReadQuery, tenantId: string | undefined): Record<string, string | undefined> {
  return { tenant_id: tenantId, service: query.filters.service, environment: query.filters.environment };
}

/** Per tenant: occurrences, errors, total duration and the services involved. */
export async function usageView(query: ReadQuery, tenantId: string | undefined): Promise<UsageResponse> {
  // Figures per tenant read the tenant grain; the services per tenant only need distinct keys.
  const base = { table: 'tenant_rollups' as const, range: query.range, equals: usageFilters(query, tenantId) };
  const [groups, pairs] = await Promise.all([
    aggregateRollups(query, { ...base, groupBy: ['tenant_id'] }),
    distinctRollupKeys(query, { ...base, groupBy: ['tenant_id', 'service'] }),
  ]);
  const byTenant = new Map<string, { occurrences: number; errors: number; totalDurationMs: number; services: string[] }>();
  for (const group of groups) {
    byTenant.set(group.keys.tenant_id!, { occurrences: group.count, errors: group.errorCount, totalDurationMs: group.durationSumMs, services: [] });
  }
  for (const pair of pairs) byTenant.get(pair.tenant_id!)?.services.push(pair.service!);
  const tenants = [...byTenant.entries()]
    .map(([id, entry]) => ({ tenantId: id, ...entry, totalDurationMs: roundMs(entry.totalDurationMs)!, services: entry.services.sort() }))
    .sort((a, b) => b.occurrences - a.occurrences || compareText(a.tenantId, b.tenantId));
  return { ...rangeEcho(query.range), tenants };
}

/** Usage per time bucket (all tenants, or one); empty buckets as zeros. */
export async function usageTrendView(query: ReadQuery, tenantId: string | undefined, interval?: TrendInterval): Promise<UsageTrendResponse> {
  const buckets = trendBucketsFor(query.range, interval);
  const groups = await aggregateRollups(query, {
    table: 'tenant_rollups',
    range: query.range,
    equals: usageFilters(query, tenantId),
    bucketMs: buckets.intervalMs,
  });
  const found = new Map(
    groups.map((group) => [
      group.bucketStartMs,
      { start: new Date(group.bucketStartMs).toISOString(), occurrences: group.count, errors: group.errorCount, totalDurationMs: roundMs(group.durationSumMs)! },
    ]),
  );
  return {
    ...rangeEcho(query.range),
    interval: buckets.interval,
    buckets: fillBuckets(buckets, found, (startMs) => ({ start: new Date(startMs).toISOString(), occurrences: 0, errors: 0, totalDurationMs: 0 })),
  };
}

/**
 * The export's rows (period x tenant x service x environment) in batches, one query per window
 * of at most a day (or one period, when periods are longer), so an export of any length holds
 * only one window's rows in memory. Validates the interval before the first batch is read.
 */
export function usageExportBatches(query: ReadQuery, tenantId: string | undefined, interval: TrendInterval): AsyncIterable<UsageExportRow[]> {
  const buckets = trendBucketsFor(query.range, interval);
  const windowMs = Math.max(trendIntervalsMs[interval], dayMs);
  const filters = usageFilters(query, tenantId);
  const { range } = query;
  return {
    async *[Symbol.asyncIterator]() {
      for (let windowStart = buckets.firstStartMs; windowStart < range.toMs; windowStart += windowMs) {
        const window: QueryRange = { fromMs: Math.max(range.fromMs, windowStart), toMs: Math.min(range.toMs, windowStart + windowMs) };
        if (window.toMs <= window.fromMs) continue;
        // Not the request's `dirtyMinutes`: a stream can outlast it, so each window looks them up afresh.
        const groups = await aggregateRollups({ db: query.db, dialect: query.dialect }, {
          table: 'tenant_rollups',
          range: window,
          equals: filters,
          groupBy: ['tenant_id', 'service', 'environment'],
          bucketMs: buckets.intervalMs,
        });
        yield groups
          .map((group) => ({
            periodStart: new Date(group.bucketStartMs).toISOString(),
            tenantId: group.keys.tenant_id!,
            service: group.keys.service!,
            environment: group.keys.environment!,
            occurrences: group.count,
            errors: group.errorCount,
            totalDurationMs: roundMs(group.durationSumMs)!,
          }))
          .sort((a, b) => compareText(a.periodStart, b.periodStart) || compareText(a.tenantId, b.tenantId) || compareText(a.service, b.service) || compareText(a.environment, b.environment));
      }
    },
  };
}

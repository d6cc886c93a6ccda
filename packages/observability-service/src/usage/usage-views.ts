import type { LogStore } from '../logs/index.js';
import type { FiguresQuery } from '../query/counted-figures.js';
import type { RollupReader } from '../query/rollup-aggregate.js';
import { roundMs } from '../query/latency-percentiles.js';
import type { QueryRange } from '../query/query-range.js';
import { compareText, rangeEcho } from '../query/read-query.js';
import { dayMs } from '../time-units.js';
import { fillBuckets, trendBucketsFor, trendIntervalsMs, type TrendInterval } from '../query/trend-interval.js';
import type { UsageExportRow, UsageResponse, UsageTrendResponse } from './usage-schemas.js';

function usageFilters(query: FiguresQuery, tenantId: string | undefined): Record<string, string | undefined> {
  return { tenant_id: tenantId, service: query.filters.service, environment: query.filters.environment };
}

interface TenantFigures {
  occurrences: number;
  errors: number;
  totalDurationMs: number;
  logs: number;
  services: Set<string>;
}

/** Per tenant: occurrences, errors, total duration, log records and the services involved. */
export async function usageView(query: FiguresQuery, logs: LogStore, tenantId: string | undefined): Promise<UsageResponse> {
  // Figures per tenant read the tenant grain; the services per tenant only need distinct keys.
  const base = { table: 'tenant_rollups' as const, range: query.range, equals: usageFilters(query, tenantId) };
  const [groups, pairs, logCounts] = await Promise.all([
    query.rollups.aggregate({ ...base, groupBy: ['tenant_id'] }),
    query.rollups.distinctKeys({ ...base, groupBy: ['tenant_id', 'service'] }),
    logs.tenantCounts({ range: query.range, filters: query.filters, tenantId }),
  ]);
  const byTenant = new Map<string, TenantFigures>();
  const tenant = (id: string) => {
    let figures = byTenant.get(id);
    if (!figures) {
      figures = { occurrences: 0, errors: 0, totalDurationMs: 0, logs: 0, services: new Set() };
      byTenant.set(id, figures);
    }
    return figures;
  };
  for (const group of groups) Object.assign(tenant(group.keys.tenant_id!), { occurrences: group.count, errors: group.errorCount, totalDurationMs: group.durationSumMs });
  for (const pair of pairs) tenant(pair.tenant_id!).services.add(pair.service!);
  for (const count of logCounts) {
    const figures = tenant(count.tenantId);
    figures.logs += count.count;
    figures.services.add(count.service);
  }
  const tenants = [...byTenant.entries()]
    .map(([id, entry]) => ({ tenantId: id, occurrences: entry.occurrences, errors: entry.errors, totalDurationMs: roundMs(entry.totalDurationMs)!, logs: entry.logs, services: [...entry.services].sort() }))
    .sort((a, b) => b.occurrences - a.occurrences || b.logs - a.logs || compareText(a.tenantId, b.tenantId));
  return { ...rangeEcho(query.range), tenants };
}

/** Usage per time bucket (all tenants, or one); empty buckets as zeros. */
export async function usageTrendView(query: FiguresQuery, logs: LogStore, tenantId: string | undefined, interval?: TrendInterval): Promise<UsageTrendResponse> {
  const buckets = trendBucketsFor(query.range, interval);
  const [groups, logCounts] = await Promise.all([
    query.rollups.aggregate({ table: 'tenant_rollups', range: query.range, equals: usageFilters(query, tenantId), bucketMs: buckets.intervalMs }),
    logs.tenantCounts({ range: query.range, filters: query.filters, tenantId, bucketMs: buckets.intervalMs }),
  ]);
  const empty = (startMs: number) => ({ start: new Date(startMs).toISOString(), occurrences: 0, errors: 0, totalDurationMs: 0, logs: 0 });
  const found = new Map<number, ReturnType<typeof empty>>();
  const bucket = (startMs: number) => {
    let entry = found.get(startMs);
    if (!entry) {
      entry = empty(startMs);
      found.set(startMs, entry);
    }
    return entry;
  };
  for (const group of groups) Object.assign(bucket(group.bucketStartMs), { occurrences: group.count, errors: group.errorCount, totalDurationMs: roundMs(group.durationSumMs)! });
  for (const count of logCounts) bucket(count.bucketStartMs).logs += count.count;
  return { ...rangeEcho(query.range), interval: buckets.interval, buckets: fillBuckets(buckets, found, empty) };
}

/**
 * The export's rows (period x tenant x service x environment) in batches, one query per window
 * of at most a day (or one period, when periods are longer), so an export of any length holds
 * only one window's rows in memory. Validates the interval before the first batch is read.
 * `windowRollups` reads each window afresh (a stream can outlast the request's own look-ups).
 */
export function usageExportBatches(
  query: FiguresQuery,
  windowRollups: RollupReader,
  logs: LogStore,
  tenantId: string | undefined,
  interval: TrendInterval,
): AsyncIterable<UsageExportRow[]> {
  const buckets = trendBucketsFor(query.range, interval);
  const windowMs = Math.max(trendIntervalsMs[interval], dayMs);
  const filters = usageFilters(query, tenantId);
  const { range } = query;
  return {
    async *[Symbol.asyncIterator]() {
      for (let windowStart = buckets.firstStartMs; windowStart < range.toMs; windowStart += windowMs) {
        const window: QueryRange = { fromMs: Math.max(range.fromMs, windowStart), toMs: Math.min(range.toMs, windowStart + windowMs) };
        if (window.toMs <= window.fromMs) continue;
        const [groups, logCounts] = await Promise.all([
          windowRollups.aggregate({
            table: 'tenant_rollups',
            range: window,
            equals: filters,
            groupBy: ['tenant_id', 'service', 'environment'],
            bucketMs: buckets.intervalMs,
          }),
          logs.tenantCounts({ range: window, filters: query.filters, tenantId, bucketMs: buckets.intervalMs }),
        ]);
        const rows = new Map<string, UsageExportRow>();
        const row = (bucketStartMs: number, tenant: string, service: string, environment: string) => {
          const id = JSON.stringify([bucketStartMs, tenant, service, environment]);
          let entry = rows.get(id);
          if (!entry) {
            entry = { periodStart: new Date(bucketStartMs).toISOString(), tenantId: tenant, service, environment, occurrences: 0, errors: 0, totalDurationMs: 0, logs: 0 };
            rows.set(id, entry);
          }
          return entry;
        };
        for (const group of groups) {
          Object.assign(row(group.bucketStartMs, group.keys.tenant_id!, group.keys.service!, group.keys.environment!), {
            occurrences: group.count,
            errors: group.errorCount,
            totalDurationMs: roundMs(group.durationSumMs)!,
          });
        }
        for (const count of logCounts) row(count.bucketStartMs, count.tenantId, count.service, count.environment).logs += count.count;
        yield [...rows.values()].sort(
          (a, b) => compareText(a.periodStart, b.periodStart) || compareText(a.tenantId, b.tenantId) || compareText(a.service, b.service) || compareText(a.environment, b.environment),
        );
      }
    },
  };
}

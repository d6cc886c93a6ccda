import type { ApdexThresholds } from '../service-settings/service-settings.js';
import { apdexScore } from './latency-percentiles.js';
import { countedFigures, serviceRolesOf, type FiguresQuery } from './counted-figures.js';
import { errorRateOf, rangeEcho } from './read-query.js';
import { fillBuckets, trendBucketsFor, type TrendInterval } from './trend-interval.js';
import type { TrendResponse } from './query-schemas.js';

/** Volume, errors, latency and Apdex of the counted spans per time bucket; buckets without data are zeros. */
export async function trendView(query: FiguresQuery, thresholds: ApdexThresholds, interval?: TrendInterval): Promise<TrendResponse> {
  const { range } = query;
  const buckets = trendBucketsFor(range, interval);
  const roles = await serviceRolesOf(query);
  const groups = await countedFigures(query, roles, thresholds, { groupBy: [], bucketMs: buckets.intervalMs });
  const found = new Map(
    groups.map((group) => {
      const bucket = {
        start: new Date(group.bucketStartMs).toISOString(),
        count: group.count,
        errorCount: group.errorCount,
        errorRate: errorRateOf(group.count, group.errorCount),
        ...group.histogram.percentiles(),
        apdex: apdexScore(group.apdex),
      };
      return [group.bucketStartMs, bucket] as const;
    }),
  );
  return {
    ...rangeEcho(range),
    interval: buckets.interval,
    buckets: fillBuckets(buckets, found, (startMs) => ({
      start: new Date(startMs).toISOString(),
      count: 0,
      errorCount: 0,
      errorRate: 0,
      p50Ms: null,
      p95Ms: null,
      p99Ms: null,
      apdex: null,
    })),
  };
}

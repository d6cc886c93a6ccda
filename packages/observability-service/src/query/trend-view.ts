import { aggregateRollups } from './rollup-aggregate.js';
import { MergedHistogram } from './latency-percentiles.js';
import { errorRateOf, rangeEcho, type ReadQuery } from './read-query.js';
import { fillBuckets, trendBucketsFor, type TrendInterval } from './trend-interval.js';
import type { TrendResponse } from './query-schemas.js';

/** Volume, errors and latency per time bucket; buckets without data are zeros. */
export async function trendView(query: ReadQuery, interval?: TrendInterval): Promise<TrendResponse> {
  const { range, filters } = query;
  const buckets = trendBucketsFor(range, interval);
  const groups = await aggregateRollups(query, {
    table: 'operation_rollups',
    range,
    equals: { service: filters.service, environment: filters.environment },
    bucketMs: buckets.intervalMs,
    withHistogram: true,
  });
  const found = new Map(
    groups.map((group) => {
      const histogram = new MergedHistogram().add(group.histogram);
      const bucket = {
        start: new Date(group.bucketStartMs).toISOString(),
        count: group.count,
        errorCount: group.errorCount,
        errorRate: errorRateOf(group.count, group.errorCount),
        ...histogram.percentiles(),
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
    })),
  };
}

import { minuteMs } from '../time-units.js';
import { aggregateRollups, rollupMinuteBounds } from './rollup-aggregate.js';
import { MergedHistogram, roundMs } from './latency-percentiles.js';
import { errorRateOf, rangeEcho, type ReadQuery } from './read-query.js';
import type { SummaryResponse } from './query-schemas.js';

/** One line for the whole range: volume, errors, latency, throughput, services. */
export async function summaryView(query: ReadQuery): Promise<SummaryResponse> {
  const { range, filters } = query;
  const groups = await aggregateRollups(query, {
    table: 'operation_rollups',
    range,
    equals: { service: filters.service, environment: filters.environment },
    groupBy: ['service'],
    withHistogram: true,
  });
  const histogram = new MergedHistogram();
  let count = 0;
  let errorCount = 0;
  let durationSumMs = 0;
  let maxMs: number | null = null;
  for (const group of groups) {
    count += group.count;
    errorCount += group.errorCount;
    durationSumMs += group.durationSumMs;
    maxMs = Math.max(maxMs ?? 0, group.durationMaxMs);
    histogram.add(group.histogram);
  }
  const { firstMinuteMs, endMinuteMs } = rollupMinuteBounds(range);
  const minutes = Math.max(1, (endMinuteMs - firstMinuteMs) / minuteMs);
  return {
    ...rangeEcho(range),
    count,
    errorCount,
    errorRate: errorRateOf(count, errorCount),
    ...histogram.percentiles(),
    averageMs: count === 0 ? null : roundMs(durationSumMs / count),
    maxMs,
    perMinute: count / minutes,
    services: groups.length,
  };
}

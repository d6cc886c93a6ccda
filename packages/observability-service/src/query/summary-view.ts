import type { ApdexThresholds } from '../service-settings/service-settings.js';
import { minuteMs } from '../time-units.js';
import { rollupMinuteBounds } from './rollup-aggregate.js';
import { apdexScore, roundMs } from './latency-percentiles.js';
import { countedFigures, serviceRolesOf, type FiguresQuery, sumFigures } from './counted-figures.js';
import { errorRateOf, rangeEcho } from './read-query.js';
import type { SummaryResponse } from './query-schemas.js';

/** One line for the whole range: volume, errors, latency, Apdex and throughput of the counted spans, and the services. */
export async function summaryView(query: FiguresQuery, thresholds: ApdexThresholds): Promise<SummaryResponse> {
  const { range } = query;
  const roles = await serviceRolesOf(query);
  const figures = sumFigures(await countedFigures(query, roles, thresholds, { groupBy: [] }));
  const { firstMinuteMs, endMinuteMs } = rollupMinuteBounds(range);
  const minutes = Math.max(1, (endMinuteMs - firstMinuteMs) / minuteMs);
  return {
    ...rangeEcho(range),
    count: figures.count,
    errorCount: figures.errorCount,
    errorRate: errorRateOf(figures.count, figures.errorCount),
    ...figures.histogram.percentiles(),
    averageMs: figures.count === 0 ? null : roundMs(figures.durationSumMs / figures.count),
    maxMs: figures.count === 0 ? null : figures.durationMaxMs,
    perMinute: figures.count / minutes,
    apdex: apdexScore(figures.apdex),
    services: roles.size,
  };
}

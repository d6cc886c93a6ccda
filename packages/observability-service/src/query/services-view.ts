import { sql } from 'kysely';
import type { ApdexThresholds } from '../service-settings/service-settings.js';
import { rollupMinuteBounds } from './rollup-aggregate.js';
import { apdexScore } from './latency-percentiles.js';
import { countedFigures, serviceRolesOf, sumFigures, type FiguresQuery } from './counted-figures.js';
import { compareText, errorRateOf, rangeEcho, type ReadQuery } from './read-query.js';
import type { ServicesResponse } from './query-schemas.js';

/**
 * Per service: its environments, and volume, error rate, latency and Apdex of its counted spans
 * (entry spans, else internal roots; counted-figures.ts) from the rollups; last seen from raw rows.
 * Services with only child spans in the range are listed too, with zero figures.
 */
/** The latest start per service among (service, environment) pairs, over [firstMinuteMs, endMinuteMs). */
export type LastSeenReader = (pairs: ReadonlyArray<{ service: string; environment: string }>, firstMinuteMs: number, endMinuteMs: number) => Promise<Map<string, number>>;

/** The SQL store's last-seen reader: one index probe per (service, environment), all in one statement. */
export function sqlLastSeen(db: ReadQuery['db']): LastSeenReader {
  return async (pairs, firstMinuteMs, endMinuteMs) => {
    const lastSeenByService = new Map<string, number>();
    if (pairs.length === 0) return lastSeenByService;
    const probes = pairs.map(
      (pair) => sql`select ${pair.service} as service, (
        select max(started_at) from occurrences
        where service = ${pair.service} and environment = ${pair.environment} and started_at >= ${firstMinuteMs} and started_at < ${endMinuteMs}
      ) as last`,
    );
    const result = await sql<{ service: string; last: number | null }>`${sql.join(probes, sql` union all `)}`.execute(db);
    for (const { service, last } of result.rows) {
      if (last !== null && Number(last) > (lastSeenByService.get(service) ?? -Infinity)) lastSeenByService.set(service, Number(last));
    }
    return lastSeenByService;
  };
}

/**
 * Per service: its environments, and volume, error rate, latency and Apdex of its counted spans
 * (entry spans, else internal roots; counted-figures.ts) from the rollups; last seen from raw rows.
 * Services with only child spans in the range are listed too, with zero figures.
 */
export async function servicesView(query: FiguresQuery & { lastSeen: LastSeenReader }, thresholds: ApdexThresholds): Promise<ServicesResponse> {
  const { range } = query;
  const roles = await serviceRolesOf(query);
  const [groups, thresholdByService] = await Promise.all([countedFigures(query, roles, thresholds, { groupBy: ['service'] }), thresholds([...roles.keys()])]);
  const figuresByService = new Map(groups.map((group) => [group.keys.service!, group]));
  // The latest start per (service, environment), over the same whole minutes the rollups
  // covered, so every listed service has one.
  const { firstMinuteMs, endMinuteMs } = rollupMinuteBounds(range);
  const pairs = [...roles].flatMap(([service, role]) => [...role.environments].map((environment) => ({ service, environment })));
  const lastSeenByService = await query.lastSeen(pairs, firstMinuteMs, endMinuteMs);
  const services = [...roles.entries()]
    .sort(([a], [b]) => compareText(a, b))
    .map(([service, role]) => {
      const figures = sumFigures(figuresByService.has(service) ? [figuresByService.get(service)!] : []);
      return {
        service,
        environments: [...role.environments].sort(),
        countedSpans: role.counted ?? ('none' as const),
        count: figures.count,
        errorCount: figures.errorCount,
        errorRate: errorRateOf(figures.count, figures.errorCount),
        ...figures.histogram.percentiles(),
        apdex: apdexScore(figures.apdex),
        apdexThresholdMs: thresholdByService.get(service)!,
        lastSeenAt: new Date(lastSeenByService.get(service) ?? range.fromMs).toISOString(),
      };
    });
  return { ...rangeEcho(range), services };
}

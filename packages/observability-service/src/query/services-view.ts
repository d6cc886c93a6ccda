import { sql } from 'kysely';
import { aggregateRollups, rollupMinuteBounds } from './rollup-aggregate.js';
import { MergedHistogram } from './latency-percentiles.js';
import { compareText, errorRateOf, rangeEcho, type ReadQuery } from './read-query.js';
import type { ServicesResponse } from './query-schemas.js';

/** Per service: its environments, volume, error rate and latency from the rollups; last seen from raw rows. */
export async function servicesView(query: ReadQuery): Promise<ServicesResponse> {
  const { db, range, filters } = query;
  const groups = await aggregateRollups(query, {
    table: 'operation_rollups',
    range,
    equals: { service: filters.service, environment: filters.environment },
    groupBy: ['service', 'environment'],
    withHistogram: true,
  });
  const byService = new Map<string, { environments: string[]; count: number; errorCount: number; histogram: MergedHistogram }>();
  for (const group of groups) {
    const service = group.keys.service!;
    const entry = byService.get(service) ?? { environments: [], count: 0, errorCount: 0, histogram: new MergedHistogram() };
    entry.environments.push(group.keys.environment!);
    entry.count += group.count;
    entry.errorCount += group.errorCount;
    entry.histogram.add(group.histogram);
    byService.set(service, entry);
  }
  // The latest start per (service, environment): one index probe each, all in one statement,
  // over the same whole minutes the rollups covered, so every listed service has one.
  const { firstMinuteMs, endMinuteMs } = rollupMinuteBounds(range);
  const lastSeenByService = new Map<string, number>();
  if (groups.length > 0) {
    const probes = groups.map(
      (group) => sql`select ${group.keys.service} as service, (
        select max(started_at) from occurrences
        where service = ${group.keys.service} and environment = ${group.keys.environment} and started_at >= ${firstMinuteMs} and started_at < ${endMinuteMs}
      ) as last`,
    );
    const result = await sql<{ service: string; last: number | null }>`${sql.join(probes, sql` union all `)}`.execute(db);
    for (const { service, last } of result.rows) {
      if (last !== null && Number(last) > (lastSeenByService.get(service) ?? -Infinity)) lastSeenByService.set(service, Number(last));
    }
  }
  const services = [...byService.entries()]
    .sort(([a], [b]) => compareText(a, b))
    .map(([service, entry]) => ({
      service,
      environments: entry.environments.sort(),
      count: entry.count,
      errorCount: entry.errorCount,
      errorRate: errorRateOf(entry.count, entry.errorCount),
      ...entry.histogram.percentiles(),
      lastSeenAt: new Date(lastSeenByService.get(service) ?? range.fromMs).toISOString(),
    }));
  return { ...rangeEcho(range), services };
}

import { aggregateRollups, rollupMinuteBounds } from './rollup-aggregate.js';
import { MergedHistogram } from './latency-percentiles.js';
import { errorRateOf, rangeEcho, type ReadQuery } from './read-query.js';
import type { ServicesResponse } from './query-schemas.js';

/** Per service: its environments, volume, error rate and latency from the rollups; last seen from raw rows. */
export async function servicesView(query: ReadQuery): Promise<ServicesResponse> {
  const { db, dialect, range, filters } = query;
  const groups = await aggregateRollups(db, dialect, {
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
  // The latest start per service: one index probe per (service, environment), never a scan;
  // over the same whole minutes the rollups covered, so every listed service has one.
  const { firstMinuteMs, endMinuteMs } = rollupMinuteBounds(range);
  const lastSeen = await Promise.all(
    groups.map(async (group) => {
      const row = await db
        .selectFrom('occurrences')
        .select((eb) => eb.fn.max('started_at').as('last'))
        .where('service', '=', group.keys.service!)
        .where('environment', '=', group.keys.environment!)
        .where('started_at', '>=', firstMinuteMs)
        .where('started_at', '<', endMinuteMs)
        .executeTakeFirst();
      return { service: group.keys.service!, last: row?.last === null || row?.last === undefined ? undefined : Number(row.last) };
    }),
  );
  const lastSeenByService = new Map<string, number>();
  for (const { service, last } of lastSeen) {
    if (last !== undefined && last > (lastSeenByService.get(service) ?? -Infinity)) lastSeenByService.set(service, last);
  }
  const services = [...byService.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
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

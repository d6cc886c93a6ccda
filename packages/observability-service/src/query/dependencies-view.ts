import { sql } from 'kysely';
import { aggregateRollups } from './rollup-aggregate.js';
import { MergedHistogram } from './latency-percentiles.js';
import { rangeEcho, type ReadQuery } from './read-query.js';
import type { DependenciesResponse } from './query-schemas.js';

/**
 * Calls between services (and to addresses and databases) as edges source -> target. The
 * `service` filter keeps the edges that touch the service, as caller or as callee: a dependency
 * map of one service needs both directions.
 */
export async function dependenciesView(query: ReadQuery): Promise<DependenciesResponse> {
  const { range, filters } = query;
  const touching = filters.service === undefined ? [] : [sql`(source_service = ${filters.service} or target = ${filters.service})`];
  const groups = await aggregateRollups(query, {
    table: 'dependency_rollups',
    range,
    equals: { environment: filters.environment },
    where: touching,
    groupBy: ['source_service', 'target', 'target_kind'],
    withHistogram: true,
  });
  const edges = groups
    .sort((a, b) => b.count - a.count || `${a.keys.source_service}>${a.keys.target}`.localeCompare(`${b.keys.source_service}>${b.keys.target}`))
    .map((group) => {
      const { p50Ms, p95Ms } = new MergedHistogram().add(group.histogram).percentiles();
      return {
        source: group.keys.source_service!,
        target: group.keys.target!,
        targetKind: group.keys.target_kind!,
        count: group.count,
        errorCount: group.errorCount,
        p50Ms,
        p95Ms,
      };
    });
  return { ...rangeEcho(range), edges };
}

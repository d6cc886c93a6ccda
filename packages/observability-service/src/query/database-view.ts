import type { FiguresQuery } from './counted-figures.js';
import { MergedHistogram } from './latency-percentiles.js';
import { compareText, rangeEcho } from './read-query.js';
import type { DatabaseResponse } from './query-schemas.js';

/** Per database system and normalized statement: volume, errors, total and typical time. */
export async function databaseView(query: FiguresQuery, limit: number): Promise<DatabaseResponse> {
  const { range, filters } = query;
  const groups = await query.rollups.aggregate({
    table: 'statement_rollups',
    range,
    equals: { service: filters.service, environment: filters.environment },
    groupBy: ['db_system', 'statement_hash'],
    withHistogram: true,
    // The hash identifies the statement, so any row's text and operation are the group's.
    extraColumns: ['statement', 'db_operation'],
  });
  const statements = groups
    .sort((a, b) => b.durationSumMs - a.durationSumMs || b.count - a.count || compareText(String(a.keys.statement_hash), String(b.keys.statement_hash)))
    .slice(0, limit)
    .map((group) => {
      const { p50Ms, p95Ms } = new MergedHistogram().add(group.histogram).percentiles();
      return {
        system: group.keys.db_system!,
        statement: group.extra.statement ?? '',
        operation: group.extra.db_operation ?? null,
        count: group.count,
        errorCount: group.errorCount,
        totalMs: group.durationSumMs,
        p50Ms,
        p95Ms,
      };
    });
  return { ...rangeEcho(range), statements };
}

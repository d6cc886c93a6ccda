import type { ApdexThresholds } from '../service-settings/service-settings.js';
import { addApdexCounts, MergedHistogram, noApdexCounts, type ApdexCounts } from './latency-percentiles.js';
import type { RollupAggregate, RollupReader } from './rollup-aggregate.js';
import type { QueryFilters, QueryRange } from './query-range.js';

/**
 * A service's RED figures and Apdex count its entry spans (`server`, `consumer`), or, when it has
 * none in the query's range and filters, its `internal` root spans (storage/span-role.ts). These
 * functions are the one place that rule is applied to the rollups; the services, summary, trend
 * and operations views and the alert evaluator read figures through them.
 */

/** What a service's figures count over a query: `entry` spans, `root` internal spans, or nothing (only child spans). */
export type CountedRole = 'entry' | 'root' | null;

export interface ServiceRoles {
  environments: Set<string>;
  counted: CountedRole;
}

/** What the figure views read: a range and filters over a store's rollups. */
export interface FiguresQuery {
  readonly range: QueryRange;
  readonly filters: QueryFilters;
  readonly rollups: RollupReader;
}

/** Every service with spans in the range (and filters), its environments, and the spans its figures count. */
export async function serviceRolesOf(query: FiguresQuery): Promise<Map<string, ServiceRoles>> {
  const keys = await query.rollups.distinctKeys({
    table: 'operation_rollups',
    range: query.range,
    equals: { service: query.filters.service, environment: query.filters.environment },
    groupBy: ['service', 'environment', 'span_role'],
  });
  const services = new Map<string, ServiceRoles & { roles: Set<string> }>();
  for (const key of keys) {
    const entry = services.get(key.service!) ?? { environments: new Set<string>(), roles: new Set<string>(), counted: null };
    entry.environments.add(key.environment!);
    entry.roles.add(key.span_role!);
    services.set(key.service!, entry);
  }
  return new Map(
    [...services].map(([service, { environments, roles }]) => [service, { environments, counted: roles.has('entry') ? 'entry' : roles.has('root') ? 'root' : null }]),
  );
}

/** Figures of the counted spans of one group (and time bucket): the rollup sums, histogram merged. */
export interface CountedFigures extends Pick<RollupAggregate, 'keys' | 'bucketStartMs' | 'count' | 'errorCount' | 'durationSumMs' | 'durationMaxMs'> {
  histogram: MergedHistogram;
  /** Apdex counts, each service's spans at its own threshold. */
  apdex: ApdexCounts;
}

export interface CountedFiguresOptions {
  /** Group by these (`service`, `environment`); none sums every service. */
  groupBy: ReadonlyArray<'service' | 'environment'>;
  bucketMs?: number;
}

/**
 * The counted spans' figures, grouped as asked, with Apdex counts at each service's threshold.
 * Two reads at most: the entry spans of every service that has them, then the root spans of
 * those that do not. When the services' thresholds differ the reads also group by service, so
 * each histogram meets its own threshold, and the groups are summed here.
 */
export async function countedFigures(query: FiguresQuery, roles: ReadonlyMap<string, ServiceRoles>, thresholds: ApdexThresholds, options: CountedFiguresOptions): Promise<CountedFigures[]> {
  const counted = [...roles].filter(([, role]) => role.counted !== null).map(([service]) => service);
  if (counted.length === 0) return [];
  const thresholdByService = await thresholds(counted);
  const uniform = new Set(thresholdByService.values()).size === 1 ? thresholdByService.get(counted[0]!)! : undefined;
  const rootOnly = counted.filter((service) => roles.get(service)!.counted === 'root');
  const base = {
    table: 'operation_rollups' as const,
    range: query.range,
    bucketMs: options.bucketMs,
    withHistogram: true,
    withErrorHistogram: true,
  };
  const byService = (groupBy: readonly string[]) => (groupBy.includes('service') ? groupBy : [...groupBy, 'service']);
  const entryGroupBy = uniform === undefined ? byService(options.groupBy) : options.groupBy;
  const reads: Array<Promise<RollupAggregate[]>> = [];
  if (rootOnly.length < counted.length) {
    reads.push(query.rollups.aggregate({ ...base, equals: { service: query.filters.service, environment: query.filters.environment, span_role: 'entry' }, groupBy: entryGroupBy }));
  }
  if (rootOnly.length > 0) {
    reads.push(
      query.rollups.aggregate({
        ...base,
        equals: { service: query.filters.service, environment: query.filters.environment, span_role: 'root' },
        oneOf: { service: rootOnly },
        groupBy: byService(options.groupBy),
      }),
    );
  }
  const merged = new Map<string, CountedFigures>();
  for (const group of (await Promise.all(reads)).flat()) {
    const histogram = new MergedHistogram().add(group.histogram);
    const thresholdMs = uniform ?? thresholdByService.get(group.keys.service!)!;
    const apdex = histogram.apdexCounts(new MergedHistogram().add(group.errorHistogram), thresholdMs);
    const keys = Object.fromEntries(options.groupBy.map((column) => [column, group.keys[column]!]));
    const id = JSON.stringify([group.bucketStartMs, ...options.groupBy.map((column) => keys[column])]);
    const existing = merged.get(id);
    if (!existing) {
      merged.set(id, { keys, bucketStartMs: group.bucketStartMs, count: group.count, errorCount: group.errorCount, durationSumMs: group.durationSumMs, durationMaxMs: group.durationMaxMs, histogram, apdex });
      continue;
    }
    existing.count += group.count;
    existing.errorCount += group.errorCount;
    existing.durationSumMs += group.durationSumMs;
    existing.durationMaxMs = Math.max(existing.durationMaxMs, group.durationMaxMs);
    existing.histogram.merge(histogram);
    existing.apdex = addApdexCounts(existing.apdex, apdex);
  }
  return [...merged.values()];
}

/** Sums figures (of several groups) into one. */
export function sumFigures(groups: readonly CountedFigures[]): Omit<CountedFigures, 'keys' | 'bucketStartMs'> {
  const total = { count: 0, errorCount: 0, durationSumMs: 0, durationMaxMs: 0, histogram: new MergedHistogram(), apdex: noApdexCounts };
  for (const group of groups) {
    total.count += group.count;
    total.errorCount += group.errorCount;
    total.durationSumMs += group.durationSumMs;
    total.durationMaxMs = Math.max(total.durationMaxMs, group.durationMaxMs);
    total.histogram.merge(group.histogram);
    total.apdex = addApdexCounts(total.apdex, group.apdex);
  }
  return total;
}

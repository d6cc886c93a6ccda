import type { ApdexThresholds } from '../service-settings/service-settings.js';
import { joinHistograms, withKeyValue, type RollupAggregate } from './rollup-aggregate.js';
import { apdexScore, MergedHistogram } from './latency-percentiles.js';
import { serviceRolesOf, type FiguresQuery, type ServiceRoles } from './counted-figures.js';
import { compareText, errorRateOf, rangeEcho } from './read-query.js';
import { operationTiers } from './rollup-tiers.js';
import type { OperationsResponse } from './query-schemas.js';

export interface OperationsOptions {
  limit: number;
  /** Only operations counted in their service's figures (true), only the others (false), or both. */
  entry?: boolean | undefined;
}

const keyColumns = ['service', 'environment', 'operation', 'kind', 'span_role'] as const;

interface OperationRow {
  service: string;
  environment: string;
  operation: string;
  kind: string;
  entry: boolean;
  count: number;
  errorCount: number;
  histogram: string | null;
  errorHistogram: string | null;
  /** The operation tiers' dictionary ids of the rollup groups folded into the row (its histograms are read by them). */
  keyIds: number[];
}

/** A row's identity: its key values and whether it is the entry row. */
function rowId(service: string, environment: string, operation: string, kind: string, entry: boolean): string {
  return withKeyValue(withKeyValue(withKeyValue(withKeyValue(entry ? '1' : '0', service), environment), operation), kind);
}

/**
 * An operation's rollup group as a row of the list: its spans are counted in the service's
 * figures (entry spans, or root spans of a service without entries) or they are not, and the
 * row says which; the other roles of the same operation and kind fold together.
 */
function rowKey(group: RollupAggregate, roles: ReadonlyMap<string, ServiceRoles>): { id: string; entry: boolean } {
  const { service, environment, operation, kind, span_role: role } = group.keys as Record<(typeof keyColumns)[number], string>;
  const entry = role === 'entry' || (role === 'root' && roles.get(service)?.counted === 'root');
  return { id: rowId(service, environment, operation, kind, entry), entry };
}

function foldRows(groups: readonly RollupAggregate[], roles: ReadonlyMap<string, ServiceRoles>): Map<string, OperationRow> {
  const rows = new Map<string, OperationRow>();
  for (const group of groups) {
    const { id, entry } = rowKey(group, roles);
    const row = rows.get(id);
    if (row) {
      row.count += group.count;
      row.errorCount += group.errorCount;
      row.histogram = joinHistograms(row.histogram, group.histogram);
      row.errorHistogram = joinHistograms(row.errorHistogram, group.errorHistogram);
      if (group.keyId !== undefined) row.keyIds.push(group.keyId);
    } else {
      const keys = group.keys;
      rows.set(id, {
        service: keys.service!,
        environment: keys.environment!,
        operation: keys.operation!,
        kind: keys.kind!,
        entry,
        count: group.count,
        errorCount: group.errorCount,
        histogram: group.histogram,
        errorHistogram: group.errorHistogram,
        keyIds: group.keyId === undefined ? [] : [group.keyId],
      });
    }
  }
  return rows;
}

/**
 * The busiest operations: count, errors, p50/p95/p99 (and Apdex for the counted ones) per
 * service, environment, operation and kind, marked `entry` when their spans are the ones their
 * service's figures count. From the operation tiers (per-minute rollups for the minutes they have
 * not caught up with, as every rollup view). Two reads: the counts of every operation, without
 * histogram text, then the histograms of the `limit` busiest only.
 */
export async function operationsView(query: FiguresQuery, thresholds: ApdexThresholds, options: OperationsOptions): Promise<OperationsResponse> {
  const { range, filters } = query;
  const base = {
    table: 'operation_rollups',
    tiers: operationTiers,
    range,
    equals: { service: filters.service, environment: filters.environment },
    groupBy: keyColumns,
  } as const;
  const [roles, counts] = await Promise.all([serviceRolesOf(query), query.rollups.aggregate({ ...base, countsOnly: true })]);
  const top = [...foldRows(counts, roles).values()]
    .filter((row) => options.entry === undefined || row.entry === options.entry)
    // In JavaScript: SQL text ordering depends on the database's collation.
    .sort(
      (a, b) =>
        b.count - a.count ||
        compareText(a.operation, b.operation) ||
        compareText(a.service, b.service) ||
        compareText(a.environment, b.environment) ||
        compareText(a.kind, b.kind) ||
        Number(b.entry) - Number(a.entry),
    )
    .slice(0, options.limit);
  if (top.length === 0) return { ...rangeEcho(range), operations: [] };

  const [withHistograms, thresholdByService] = await Promise.all([
    query.rollups.aggregate({
      ...base,
      // Only the histograms are read from this answer (the counts come from the first).
      countsOnly: true,
      withHistogram: true,
      withErrorHistogram: true,
      // The tiers' rows by the ids the counts found; the per-minute rollups by name.
      keyIds: top.flatMap((row) => row.keyIds),
      oneOf: { service: top.map((row) => row.service), operation: top.map((row) => row.operation) },
    }),
    thresholds([...new Set(top.map((row) => row.service))]),
  ]);
  const histograms = foldRows(withHistograms, roles);

  return {
    ...rangeEcho(range),
    operations: top.map((row) => {
      const found = histograms.get(rowId(row.service, row.environment, row.operation, row.kind, row.entry));
      const histogram = new MergedHistogram().add(found?.histogram);
      const thresholdMs = thresholdByService.get(row.service)!;
      return {
        service: row.service,
        environment: row.environment,
        operation: row.operation,
        kind: row.kind,
        entry: row.entry,
        count: row.count,
        errorCount: row.errorCount,
        errorRate: errorRateOf(row.count, row.errorCount),
        ...histogram.percentiles(),
        apdex: row.entry ? apdexScore(histogram.apdexCounts(new MergedHistogram().add(found?.errorHistogram), thresholdMs)) : null,
      };
    }),
  };
}

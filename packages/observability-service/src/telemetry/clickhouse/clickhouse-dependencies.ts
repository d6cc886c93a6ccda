import { MergedHistogram } from '../../query/latency-percentiles.js';
import type { DependenciesResponse } from '../../query/query-schemas.js';
import { rangeEcho, type TelemetryRead } from '../../query/read-query.js';
import { rollupMinuteBounds } from '../../query/rollup-aggregate.js';
import { stringLiteral } from './clickhouse-literal.js';
import { histogramText } from './clickhouse-rollups.js';
import { dayConditions, daysAround } from './clickhouse-occurrences.js';
import type { ClickHouseTelemetry } from './clickhouse-telemetry.js';

/** What a span declares it calls (storage/dependency-edges.ts `declaredTarget`), '' for nothing. */
const declaredTarget = `multiIf(
  kind NOT IN ('client', 'producer'), '',
  isNotNull(peer_service), assumeNotNull(peer_service),
  isNotNull(peer_address), assumeNotNull(peer_address),
  isNotNull(db_system) AND kind = 'client', assumeNotNull(db_system),
  '')`;
const declaredKind = `multiIf(isNotNull(peer_service), 'service', isNotNull(peer_address), 'address', 'database')`;

/**
 * Calls between services, to addresses and to databases, as the SQL store's dependency rollups
 * count them (storage/dependency-edges.ts), computed from the raw occurrences at read time: the
 * edges spans declare, plus a parent and child of one trace in different services (the parent
 * declaring nothing), with the child's figures. Computing them at read time needs no lookup while
 * writing, so any number of writers stay exact. A parent is looked for within a day either side
 * of the range; the SQL store finds it at any distance.
 */
export async function clickHouseDependencies(telemetry: ClickHouseTelemetry, read: TelemetryRead): Promise<DependenciesResponse> {
  const { range, filters } = read;
  const table = `${telemetry.database}.occurrences`;
  // Whole minutes, as the rollups count them: any minute part of which lies in the range.
  const { firstMinuteMs, endMinuteMs } = rollupMinuteBounds(range);
  const inRange = dayConditions(firstMinuteMs, endMinuteMs);
  if (filters.environment !== undefined) inRange.push(`environment = ${stringLiteral(filters.environment)}`);
  const where = inRange.join(' AND ');
  const children = `${where} AND isNotNull(parent_span_id)`;
  const edges = `
    SELECT service AS source_service, ${declaredTarget} AS target, ${declaredKind} AS target_kind, is_error, latency_bucket
      FROM ${table} WHERE ${where} AND target != ''
    UNION ALL
    SELECT parent_service AS source_service, service AS target, 'service' AS target_kind, is_error, latency_bucket
      FROM (SELECT trace_id, assumeNotNull(parent_span_id) AS pid, service, is_error, latency_bucket FROM ${table} WHERE ${children})
      ANY INNER JOIN (
        SELECT trace_id, span_id AS pid, service AS parent_service, ${declaredTarget} AS parent_target FROM ${table}
        WHERE ${daysAround(range, 1).join(' AND ')} AND trace_id IN (SELECT trace_id FROM ${table} WHERE ${children})
      ) USING (trace_id, pid)
      WHERE parent_service != service AND parent_target = ''`;
  const touching = filters.service === undefined ? '' : `WHERE source_service = ${stringLiteral(filters.service)} OR target = ${stringLiteral(filters.service)}`;
  const rows = await telemetry.rows<{ source_service: string; target: string; target_kind: string; n: string; errors: string; hist: [number[], string[]] }>(`
    SELECT source_service, target, target_kind, count() AS n, sum(is_error) AS errors, sumMap([latency_bucket], [toUInt64(1)]) AS hist
    FROM (${edges}) ${touching}
    GROUP BY source_service, target, target_kind`);
  const found = rows
    .map((row) => {
      const { p50Ms, p95Ms } = new MergedHistogram().add(histogramText(row.hist)).percentiles();
      return { source: row.source_service, target: row.target, targetKind: row.target_kind as DependenciesResponse['edges'][number]['targetKind'], count: Number(row.n), errorCount: Number(row.errors), p50Ms, p95Ms };
    })
    .sort((a, b) => b.count - a.count || `${a.source}>${a.target}`.localeCompare(`${b.source}>${b.target}`));
  return { ...rangeEcho(range), edges: found };
}

import type { AlertErrorGroup, AlertReads, OccurrenceFilter } from '../alert-reads.js';
import { hourOf } from '../../errors/error-group-merge.js';
import { listOf, storedGroups } from './clickhouse-error-groups.js';
import { numberLiteral, sentDouble, stringLiteral } from './clickhouse-literal.js';
import { histogramText } from './clickhouse-rollups.js';
import type { ClickHouseTelemetry } from './clickhouse-telemetry.js';
import { dayOf } from './clickhouse-writer.js';

/** Day partitions, then the time column, of [fromMs, endMs). */
function timeConditions(column: string, fromMs: number, endMs: number): string[] {
  return [
    `day >= toDate(${stringLiteral(dayOf(fromMs))})`,
    `day <= toDate(${stringLiteral(dayOf(Math.max(fromMs, endMs - 1)))})`,
    `${column} >= ${numberLiteral(fromMs)}`,
    `${column} < ${numberLiteral(endMs)}`,
  ];
}

function occurrenceConditions(filter: OccurrenceFilter, fromMs: number, toMs: number): string[] {
  return [
    ...timeConditions('started_at', fromMs, toMs),
    `service = ${stringLiteral(filter.service)}`,
    ...(filter.operation === undefined ? [] : [`operation = ${stringLiteral(filter.operation)}`]),
    ...(filter.environment === undefined ? [] : [`environment = ${stringLiteral(filter.environment)}`]),
    ...(filter.tenant === undefined ? [] : [`tenant_id = ${stringLiteral(filter.tenant)}`]),
  ];
}

const servicesCondition = (services: readonly string[]) => (services.length === 0 ? '1 = 1' : `service IN ${listOf([...new Set(services)])}`);

interface FigureRow {
  minute: string | number;
  service: string;
  environment: string;
  span_role: string;
  n: string | number;
  errors: string | number;
  hist: [number[], Array<number | string>];
  error_hist: [number[], Array<number | string>];
}

const figures = (row: FigureRow) => ({
  minute: Number(row.minute),
  service: row.service,
  environment: row.environment,
  spanRole: row.span_role,
  count: Number(row.n),
  errorCount: Number(row.errors),
  histogram: histogramText(row.hist) ?? '',
  errorHistogram: histogramText(row.error_hist) ?? '',
});

/**
 * What alerts read of the telemetry, on ClickHouse: the same figures as `sqlAlertReads` from the
 * same occurrences (test/clickhouse-alert-reads.test.ts compares them). Operation figures come
 * from the operation rollups (summed over `kind`, which rules do not ask about); a tenant's
 * requests from the raw occurrences (the tenant rollups count every span), as on SQL; error
 * groups from their hour states and status history.
 */
export function clickHouseAlertReads(telemetry: ClickHouseTelemetry): AlertReads {
  const db = telemetry.database;
  const reads: AlertReads = {
    async operationMinutes(services, fromMinute, endMinute) {
      const rows = await telemetry.rows<FigureRow & { operation: string }>(`
        SELECT minute, service, environment, operation, span_role, countMerge(count) AS n, sumMerge(error_count) AS errors,
          sumMapMerge(histogram) AS hist, sumMapMerge(error_histogram) AS error_hist
        FROM ${db}.operation_rollups
        WHERE ${[...timeConditions('minute', fromMinute, endMinute), servicesCondition(services)].join(' AND ')}
        GROUP BY minute, service, environment, operation, span_role`);
      return rows.map((row) => ({ ...figures(row), operation: row.operation }));
    },

    async tenantMinutes(pairs, fromMinute, endMinute) {
      if (pairs.length === 0) return [];
      const wanted = new Set(pairs.map((pair) => `${pair.tenant}\u0000${pair.service}`));
      const rows = await telemetry.rows<FigureRow & { tenant_id: string }>(`
        SELECT toUInt64(floor(started_at / 60000)) * 60000 AS minute, assumeNotNull(tenant_id) AS tenant_id, service, environment, span_role,
          count() AS n, sum(is_error) AS errors,
          sumMap([latency_bucket], [toUInt64(1)]) AS hist,
          sumMap(if(is_error = 1, [latency_bucket], emptyArrayUInt16()), if(is_error = 1, [toUInt64(1)], emptyArrayUInt64())) AS error_hist
        FROM ${db}.occurrences
        WHERE ${[
          ...timeConditions('started_at', fromMinute, endMinute),
          `has_tenant = 1`,
          `tenant_id IN ${listOf([...new Set(pairs.map((pair) => pair.tenant))])}`,
          servicesCondition(pairs.map((pair) => pair.service)),
          `span_role IN ('entry', 'root')`,
        ].join(' AND ')}
        GROUP BY minute, tenant_id, service, environment, span_role`);
      return rows.filter((row) => wanted.has(`${row.tenant_id}\u0000${row.service}`)).map((row) => ({ ...figures(row), tenant: row.tenant_id }));
    },

    async errorGroupChanges(services, fromMs, endMs) {
      // Aliases differ from column names: ClickHouse 18.16 would put any(service) in the WHERE for `service`.
      const found = await telemetry.rows<{ group_id: string; group_service: string; first: number }>(`
        SELECT group_id, any(service) AS group_service, minMerge(first_seen) AS first
        FROM ${db}.error_group_hours
        WHERE day <= toDate(${stringLiteral(dayOf(Math.max(fromMs, endMs - 1)))}) AND ${servicesCondition(services)}
        GROUP BY group_id HAVING first >= ${numberLiteral(fromMs)} AND first < ${numberLiteral(endMs)}`);
      const changes: Array<Omit<AlertErrorGroup, 'environments'>> = found.map((row) => ({ groupId: row.group_id, service: row.group_service, change: 'new', at: sentDouble(row.first, 16) }));
      // Status changes of the services' groups; each resolution with the change after it (18.16 joins one table per query).
      const statuses = await telemetry.rows<{ group_id: string; group_service: string; status: string; changed_at: number | string }>(`
        SELECT s.group_id AS group_id, g.group_service AS group_service, s.status AS status, s.changed_at AS changed_at
        FROM ${db}.error_group_statuses AS s
        ANY INNER JOIN (SELECT group_id, any(service) AS group_service FROM ${db}.error_group_hours WHERE ${servicesCondition(services)} GROUP BY group_id) AS g USING group_id
        ORDER BY group_id, changed_at`);
      const resolutions = statuses.flatMap((row, i) => {
        if (row.status !== 'resolved' || Number(row.changed_at) >= endMs) return [];
        const next = statuses[i + 1];
        return [{ ...row, next_change: next !== undefined && next.group_id === row.group_id ? Number(next.changed_at) : 0 }];
      });
      for (const resolution of resolutions) {
        const resolvedAt = Number(resolution.changed_at);
        const next = Number(resolution.next_change);
        const until = Math.min(endMs, next > resolvedAt ? next : endMs);
        if (until <= fromMs) continue;
        // The first occurrence after the resolution regressed the group; later ones did not regress it again.
        const first = await telemetry.rows<{ at: number | null; n: string | number }>(`
          SELECT min(started_at) AS at, count() AS n FROM ${db}.occurrences
          WHERE day >= toDate(${stringLiteral(dayOf(resolvedAt))}) AND error_group_id = ${stringLiteral(resolution.group_id)} AND started_at > ${numberLiteral(resolvedAt)}`);
        const at = first[0] === undefined || Number(first[0].n) === 0 ? undefined : sentDouble(first[0].at!, 16);
        if (at !== undefined && at >= fromMs && at < until) changes.push({ groupId: resolution.group_id, service: resolution.group_service, change: 'regressed', at });
      }
      if (changes.length === 0) return [];
      const hours = await telemetry.rows<{ group_id: string; environment: string; hour: number | string }>(`
        SELECT DISTINCT group_id, environment, hour FROM ${db}.error_group_hours
        WHERE day >= toDate(${stringLiteral(dayOf(hourOf(fromMs)))}) AND hour >= ${numberLiteral(hourOf(fromMs))} AND hour < ${numberLiteral(endMs)}
          AND group_id IN ${listOf([...new Set(changes.map((change) => change.groupId))])}`);
      return changes.map((change) => ({
        ...change,
        environments: [...new Set(hours.filter((row) => row.group_id === change.groupId && Number(row.hour) >= hourOf(change.at)).map((row) => row.environment))],
      }));
    },

    async exampleTraces(filter, fromMs, toMs, failing, limit = 3) {
      const rows = await telemetry.rows<{ id: string; trace_id: string; span_id: string; duration_ms: number; status: string }>(`
        SELECT id, trace_id, span_id, duration_ms, status FROM ${db}.occurrences
        WHERE ${[...occurrenceConditions(filter, fromMs, toMs), ...(failing ? [`status = 'error'`] : [])].join(' AND ')}
        ORDER BY duration_ms DESC LIMIT ${numberLiteral(limit)}`);
      return rows.map((row) => ({ traceId: row.trace_id, spanId: row.span_id, occurrenceId: row.id, durationMs: sentDouble(row.duration_ms), status: row.status }));
    },

    async topErrorGroupId(filter, fromMs, toMs) {
      const rows = await telemetry.rows<{ group_id: string }>(`
        SELECT assumeNotNull(error_group_id) AS group_id, count() AS n FROM ${db}.occurrences
        WHERE ${[...occurrenceConditions(filter, fromMs, toMs), 'isNotNull(error_group_id)'].join(' AND ')}
        GROUP BY group_id ORDER BY n DESC, group_id LIMIT 1`);
      return rows[0]?.group_id;
    },

    async errorGroupDetails(groupId) {
      const [group] = await storedGroups(telemetry, listOf([groupId]));
      if (!group) return undefined;
      return { groupId, type: group.error_type, message: group.message, topFrame: group.top_frame, exampleTraceId: group.example_trace_id, stack: group.example_stack };
    },
  };
  return reads;
}

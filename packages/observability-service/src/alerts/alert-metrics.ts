import { sql } from 'kysely';
import type { ObservabilityDb } from '../database.js';

/**
 * Every query alerts make of the telemetry: the per-minute rollups rules are evaluated on, and the
 * occurrences and error groups their notifications carry as evidence. Kept in this one file so
 * they can move behind the telemetry storage's boundary; they read the tables as ingestion
 * writes them (src/storage/storage-tables.ts, src/errors/error-group-tables.ts).
 */

/** One `operation_rollups` row, as rules read it. */
export interface OperationMinute {
  minute: number;
  service: string;
  environment: string;
  operation: string;
  spanRole: string;
  count: number;
  errorCount: number;
  histogram: string;
  errorHistogram: string;
}

/** One `tenant_rollups` row. */
export interface TenantMinute {
  minute: number;
  tenant: string;
  service: string;
  environment: string;
  count: number;
  errorCount: number;
  histogram: string;
}

/** Services listed in a query at most; more read every service's rows (cheaper than a long IN list). */
const servicesListedMax = 200;

function servicesCondition(services: readonly string[], column = 'service') {
  const distinct = [...new Set(services)];
  if (distinct.length === 0 || distinct.length > servicesListedMax) return sql`1 = 1`;
  return sql`${sql.ref(column)} in (${sql.join(distinct)})`;
}

/** The operation rollups of the minutes in [fromMinute, endMinute) of these services. */
export async function operationMinutes(db: ObservabilityDb, services: readonly string[], fromMinute: number, endMinute: number): Promise<OperationMinute[]> {
  const result = await sql<Record<string, unknown>>`
    select minute, service, environment, operation, span_role, count, error_count, histogram, error_histogram
    from operation_rollups
    where minute >= ${fromMinute} and minute < ${endMinute} and ${servicesCondition(services)}
  `.execute(db);
  return result.rows.map((row) => ({
    minute: Number(row.minute),
    service: String(row.service),
    environment: String(row.environment),
    operation: String(row.operation),
    spanRole: String(row.span_role),
    count: Number(row.count),
    errorCount: Number(row.error_count),
    histogram: String(row.histogram),
    errorHistogram: String(row.error_histogram),
  }));
}

/** The tenant rollups of the minutes in [fromMinute, endMinute) of these tenants. */
export async function tenantMinutes(db: ObservabilityDb, tenants: readonly string[], fromMinute: number, endMinute: number): Promise<TenantMinute[]> {
  if (tenants.length === 0) return [];
  const result = await sql<Record<string, unknown>>`
    select minute, tenant_id, service, environment, count, error_count, histogram
    from tenant_rollups
    where minute >= ${fromMinute} and minute < ${endMinute} and ${servicesCondition(tenants, 'tenant_id')}
  `.execute(db);
  return result.rows.map((row) => ({
    minute: Number(row.minute),
    tenant: String(row.tenant_id),
    service: String(row.service),
    environment: String(row.environment),
    count: Number(row.count),
    errorCount: Number(row.error_count),
    histogram: String(row.histogram),
  }));
}

/** An error group as alerts read it: new or regressed groups, and the evidence of error rules. */
export interface AlertErrorGroup {
  groupId: string;
  service: string;
  type: string;
  message: string;
  topFrame: string;
  status: string;
  firstSeen: number;
  lastSeen: number;
  resolvedAt: number | null;
  /** Environments it occurred in, in the hours read. */
  environments: string[];
}

/**
 * Groups of these services first seen, or regressed (seen after being resolved), at or after
 * `fromMs`, with the environments they occurred in since the hour `fromMs` falls in.
 */
export async function recentErrorGroups(db: ObservabilityDb, services: readonly string[], fromMs: number): Promise<AlertErrorGroup[]> {
  const result = await sql<Record<string, unknown>>`
    select group_id, service, error_type, message, top_frame, status, first_seen, last_seen, resolved_at
    from error_groups
    where (first_seen >= ${fromMs} or (status = 'regressed' and last_seen >= ${fromMs})) and ${servicesCondition(services)}
  `.execute(db);
  if (result.rows.length === 0) return [];
  const ids = result.rows.map((row) => String(row.group_id));
  const hours = await sql<{ group_id: string; environment: string }>`
    select distinct group_id, environment from error_group_hours
    where hour >= ${Math.floor(fromMs / 3_600_000) * 3_600_000} and group_id in (${sql.join(ids)})
  `.execute(db);
  const environments = new Map<string, string[]>();
  for (const row of hours.rows) environments.set(row.group_id, [...(environments.get(row.group_id) ?? []), row.environment]);
  return result.rows.map((row) => ({
    groupId: String(row.group_id),
    service: String(row.service),
    type: String(row.error_type),
    message: String(row.message),
    topFrame: String(row.top_frame),
    status: String(row.status),
    firstSeen: Number(row.first_seen),
    lastSeen: Number(row.last_seen),
    resolvedAt: row.resolved_at === null ? null : Number(row.resolved_at),
    environments: environments.get(String(row.group_id)) ?? [],
  }));
}

/** Which occurrences a rule's evidence is taken from. */
export interface OccurrenceFilter {
  service: string;
  operation?: string | undefined;
  environment?: string | undefined;
  tenant?: string | undefined;
}

function occurrenceConditions(filter: OccurrenceFilter, fromMs: number, toMs: number) {
  return [
    sql`service = ${filter.service}`,
    sql`started_at >= ${fromMs}`,
    sql`started_at < ${toMs}`,
    ...(filter.operation === undefined ? [] : [sql`operation = ${filter.operation}`]),
    ...(filter.environment === undefined ? [] : [sql`environment = ${filter.environment}`]),
    ...(filter.tenant === undefined ? [] : [sql`tenant_id = ${filter.tenant}`]),
  ];
}

/** An example occurrence: its trace, its span and how long it took. */
export interface ExampleTrace {
  traceId: string;
  spanId: string;
  occurrenceId: string;
  durationMs: number;
  status: string;
}

/** Up to `limit` of the slowest occurrences in [fromMs, toMs), failing ones only when `failing`. */
export async function exampleTraces(db: ObservabilityDb, filter: OccurrenceFilter, fromMs: number, toMs: number, failing: boolean, limit = 3): Promise<ExampleTrace[]> {
  const conditions = [...occurrenceConditions(filter, fromMs, toMs), ...(failing ? [sql`status = 'error'`] : [])];
  const result = await sql<Record<string, unknown>>`
    select id, trace_id, span_id, duration_ms, status from occurrences
    where ${sql.join(conditions, sql` and `)}
    order by duration_ms desc limit ${limit}
  `.execute(db);
  return result.rows.map((row) => ({
    traceId: String(row.trace_id),
    spanId: String(row.span_id),
    occurrenceId: String(row.id),
    durationMs: Number(row.duration_ms),
    status: String(row.status),
  }));
}

/** The error group with the most occurrences in [fromMs, toMs), with its stored details. */
export async function topErrorGroupId(db: ObservabilityDb, filter: OccurrenceFilter, fromMs: number, toMs: number): Promise<string | undefined> {
  const result = await sql<{ error_group_id: string }>`
    select error_group_id from occurrences
    where ${sql.join([...occurrenceConditions(filter, fromMs, toMs), sql`error_group_id is not null`], sql` and `)}
    group by error_group_id order by count(*) desc, error_group_id limit 1
  `.execute(db);
  return result.rows[0]?.error_group_id;
}

/** A group's message and the stack of its example occurrence (null when that is gone). */
export async function errorGroupDetails(
  db: ObservabilityDb,
  groupId: string,
): Promise<{ groupId: string; type: string; message: string; topFrame: string; exampleTraceId: string; stack: string | null } | undefined> {
  const group = await sql<Record<string, unknown>>`
    select group_id, error_type, message, top_frame, example_trace_id, example_span_id from error_groups where group_id = ${groupId}
  `.execute(db);
  const row = group.rows[0];
  if (!row) return undefined;
  const example = await sql<{ error_stack: string | null }>`
    select error_stack from occurrences where trace_id = ${String(row.example_trace_id)} and span_id = ${String(row.example_span_id)} limit 1
  `.execute(db);
  return {
    groupId,
    type: String(row.error_type),
    message: String(row.message),
    topFrame: String(row.top_frame),
    exampleTraceId: String(row.example_trace_id),
    stack: example.rows[0]?.error_stack ?? null,
  };
}

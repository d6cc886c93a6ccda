import { sql, type Kysely } from 'kysely';
import type { SqlTelemetryDatabase } from './sql-telemetry-database.js';

/** The telemetry tables (raw SQL: the types only name the database). */
type ObservabilityDb = Kysely<SqlTelemetryDatabase>;
import { LatencyHistogram } from '../storage/latency-histogram.js';
import { spanRoleOf } from '../storage/span-role.js';
import { minuteOf } from '../time-units.js';

const hourOf = (epochMs: number) => Math.floor(epochMs / 3_600_000) * 3_600_000;

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

/** A tenant's entry (or root) spans of one minute, service and environment, as rules read them. */
export interface TenantMinute {
  minute: number;
  tenant: string;
  service: string;
  environment: string;
  /** `entry` or `root` (src/storage/span-role.ts): what a service's request figures count. */
  spanRole: string;
  count: number;
  errorCount: number;
  histogram: string;
  errorHistogram: string;
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

/**
 * The entry and root spans of these tenants in these services, per minute in [fromMinute,
 * endMinute), summed from the raw occurrences: the tenant rollups count every span of a tenant
 * (its client calls, queries and internal steps too), which is its usage but not its requests.
 * A tenant's spans of a few minutes are few; the tenant index reads only them.
 */
export async function tenantMinutes(db: ObservabilityDb, pairs: ReadonlyArray<{ tenant: string; service: string }>, fromMinute: number, endMinute: number): Promise<TenantMinute[]> {
  if (pairs.length === 0) return [];
  const tenants = [...new Set(pairs.map((pair) => pair.tenant))];
  const wanted = new Set(pairs.map((pair) => `${pair.tenant}\u0000${pair.service}`));
  const result = await sql<{ started_at: number | string; tenant_id: string; service: string; environment: string; kind: string; parent_span_id: string | null; duration_ms: number | string; status: string }>`
    select started_at, tenant_id, service, environment, kind, parent_span_id, duration_ms, status
    from occurrences
    where tenant_id in (${sql.join(tenants)}) and started_at >= ${fromMinute} and started_at < ${endMinute}
      and (kind in ('server', 'consumer') or (kind = 'internal' and parent_span_id is null))
      and ${servicesCondition(pairs.map((pair) => pair.service))}
  `.execute(db);
  const cells = new Map<string, { minute: number; tenant: string; service: string; environment: string; spanRole: string; count: number; errorCount: number; histogram: LatencyHistogram; errorHistogram: LatencyHistogram }>();
  for (const row of result.rows) {
    if (!wanted.has(`${row.tenant_id}\u0000${row.service}`)) continue;
    const minute = minuteOf(Number(row.started_at));
    const spanRole = spanRoleOf(row.kind, row.parent_span_id);
    const key = `${minute}\u0000${row.tenant_id}\u0000${row.service}\u0000${row.environment}\u0000${spanRole}`;
    let cell = cells.get(key);
    if (!cell) {
      cell = { minute, tenant: row.tenant_id, service: row.service, environment: row.environment, spanRole, count: 0, errorCount: 0, histogram: new LatencyHistogram(), errorHistogram: new LatencyHistogram() };
      cells.set(key, cell);
    }
    const durationMs = Number(row.duration_ms);
    cell.count += 1;
    cell.histogram.record(durationMs);
    if (row.status === 'error') {
      cell.errorCount += 1;
      cell.errorHistogram.record(durationMs);
    }
  }
  return [...cells.values()].map((cell) => ({ ...cell, histogram: cell.histogram.encode(), errorHistogram: cell.errorHistogram.encode() }));
}

/** A new or regressed error group as new-error-group rules count it. */
export interface AlertErrorGroup {
  groupId: string;
  service: string;
  /** `new`: its first occurrence; `regressed`: its first occurrence after a user resolved it. */
  change: 'new' | 'regressed';
  /** When that occurrence started. */
  at: number;
  /** Environments it occurred in from the hour of `at` on. */
  environments: string[];
}

/**
 * The groups of these services that were new, or regressed, in [fromMs, endMs): first seen then,
 * or seen for the first time after a resolution that was still in force (no later status change
 * before that occurrence). Decided from the status history and the occurrences, not from the
 * current status, so a past minute evaluated late (a catch-up) counts what was true then.
 */
export async function errorGroupChanges(db: ObservabilityDb, services: readonly string[], fromMs: number, endMs: number): Promise<AlertErrorGroup[]> {
  const found = await sql<{ group_id: string; service: string; first_seen: number | string }>`
    select group_id, service, first_seen from error_groups
    where first_seen >= ${fromMs} and first_seen < ${endMs} and ${servicesCondition(services)}
  `.execute(db);
  const changes: Array<Omit<AlertErrorGroup, 'environments'>> = found.rows.map((row) => ({ groupId: row.group_id, service: row.service, change: 'new', at: Number(row.first_seen) }));
  const resolutions = await sql<{ group_id: string; service: string; changed_at: number | string; next_change: number | string | null }>`
    select c.group_id, g.service, c.changed_at,
      (select min(n.changed_at) from error_group_status_changes n where n.group_id = c.group_id and n.changed_at > c.changed_at) as next_change
    from error_group_status_changes c join error_groups g on g.group_id = c.group_id
    where c.status = 'resolved' and c.changed_at < ${endMs} and ${servicesCondition(services, 'g.service')}
  `.execute(db);
  for (const resolution of resolutions.rows) {
    const resolvedAt = Number(resolution.changed_at);
    const until = Math.min(endMs, resolution.next_change === null ? endMs : Number(resolution.next_change));
    if (until <= fromMs) continue;
    // The first occurrence after the resolution regressed the group; later ones did not regress it again.
    const first = await sql<{ started_at: number | string }>`
      select started_at from occurrences where error_group_id = ${resolution.group_id} and started_at > ${resolvedAt}
      order by started_at limit 1
    `.execute(db);
    const at = first.rows[0] === undefined ? undefined : Number(first.rows[0].started_at);
    if (at !== undefined && at >= fromMs && at < until) changes.push({ groupId: resolution.group_id, service: resolution.service, change: 'regressed', at });
  }
  if (changes.length === 0) return [];
  const hours = await sql<{ group_id: string; environment: string; hour: number | string }>`
    select group_id, environment, hour from error_group_hours
    where hour >= ${hourOf(fromMs)} and hour < ${endMs} and group_id in (${sql.join([...new Set(changes.map((change) => change.groupId))])})
  `.execute(db);
  return changes.map((change) => ({
    ...change,
    environments: [...new Set(hours.rows.filter((row) => row.group_id === change.groupId && Number(row.hour) >= hourOf(change.at)).map((row) => row.environment))],
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

/** A group's message and the stack of its example occurrence, as evidence shows it. */
export type ErrorGroupDetails = NonNullable<Awaited<ReturnType<typeof errorGroupDetails>>>;

/**
 * What alerts read of the telemetry, wherever the telemetry store keeps it: the SQL tables
 * (`sqlAlertReads`) or ClickHouse. Rule states, events, silences and the lease stay in the
 * service database whatever the store.
 */
export interface AlertReads {
  operationMinutes(services: readonly string[], fromMinute: number, endMinute: number): Promise<OperationMinute[]>;
  tenantMinutes(pairs: ReadonlyArray<{ tenant: string; service: string }>, fromMinute: number, endMinute: number): Promise<TenantMinute[]>;
  errorGroupChanges(services: readonly string[], fromMs: number, endMs: number): Promise<AlertErrorGroup[]>;
  exampleTraces(filter: OccurrenceFilter, fromMs: number, toMs: number, failing: boolean, limit?: number): Promise<ExampleTrace[]>;
  topErrorGroupId(filter: OccurrenceFilter, fromMs: number, toMs: number): Promise<string | undefined>;
  errorGroupDetails(groupId: string): Promise<ErrorGroupDetails | undefined>;
}

/** The reads over the SQL telemetry tables (SQLite or PostgreSQL). */
export function sqlAlertReads(db: ObservabilityDb): AlertReads {
  return {
    operationMinutes: (services, fromMinute, endMinute) => operationMinutes(db, services, fromMinute, endMinute),
    tenantMinutes: (pairs, fromMinute, endMinute) => tenantMinutes(db, pairs, fromMinute, endMinute),
    errorGroupChanges: (services, fromMs, endMs) => errorGroupChanges(db, services, fromMs, endMs),
    exampleTraces: (filter, fromMs, toMs, failing, limit) => exampleTraces(db, filter, fromMs, toMs, failing, limit),
    topErrorGroupId: (filter, fromMs, toMs) => topErrorGroupId(db, filter, fromMs, toMs),
    errorGroupDetails: (groupId) => errorGroupDetails(db, groupId),
  };
}

/**
 * `reads` with the evidence reads remembered by their arguments: the rules that change state in
 * the same minute over the same service, window and filters (an error-rate and a latency rule of
 * one operation, say) share one query for their example traces and error groups.
 */
export function sharedEvidenceReads(reads: AlertReads): AlertReads {
  const remembered = new Map<string, Promise<unknown>>();
  const once = <T>(key: unknown[], read: () => Promise<T>): Promise<T> => {
    const id = JSON.stringify(key);
    let result = remembered.get(id) as Promise<T> | undefined;
    if (!result) remembered.set(id, (result = read()));
    return result;
  };
  const filterKey = (filter: OccurrenceFilter) => [filter.service, filter.operation ?? null, filter.environment ?? null, filter.tenant ?? null];
  return {
    ...reads,
    exampleTraces: (filter, fromMs, toMs, failing, limit) =>
      once(['traces', ...filterKey(filter), fromMs, toMs, failing, limit ?? null], () => reads.exampleTraces(filter, fromMs, toMs, failing, limit)),
    topErrorGroupId: (filter, fromMs, toMs) => once(['top', ...filterKey(filter), fromMs, toMs], () => reads.topErrorGroupId(filter, fromMs, toMs)),
    errorGroupDetails: (groupId) => once(['group', groupId], () => reads.errorGroupDetails(groupId)),
  };
}

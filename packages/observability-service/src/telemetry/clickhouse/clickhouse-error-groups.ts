import { ApiError } from '@playstack/server-kit';
import { errorFingerprint, groupMessageMaxChars } from '../../errors/error-fingerprint.js';
import { hourMs } from '../../errors/error-group-merge.js';
import type { ErrorGroupsTable } from '../../errors/error-group-tables.js';
import { decodeCursor, encodeCursor, groupFieldsOf, hoursOf, listTrendOf, statusesOf } from '../../errors/error-groups-view.js';
import {
  errorGroupsLimitDefault,
  groupRecentOccurrencesShown,
  groupTenantsShown,
  type ErrorGroupDetail,
  type ErrorGroupQuery,
  type ErrorGroupsQuery,
  type ErrorGroupsResponse,
  type ErrorGroupStatusResponse,
  type ErrorGroupStatusUpdate,
} from '../../errors/error-schemas.js';
import '../../errors/error-group-error-codes.js';
import { occurrenceFromRow } from '../../query/occurrence-record.js';
import { resolveQueryRange } from '../../query/query-range.js';
import { rangeEcho } from '../../query/read-query.js';
import { fillBuckets, trendBucketsFor } from '../../query/trend-interval.js';
import { numberLiteral, sentDouble, stringArrayLiteral, stringLiteral } from './clickhouse-literal.js';
import { dayConditions } from './clickhouse-occurrences.js';
import { storedOccurrence, type ClickHouseOccurrenceRow, type ClickHouseTelemetry } from './clickhouse-telemetry.js';
import { dayOf } from './clickhouse-writer.js';

/**
 * Error groups on ClickHouse. Counts, first and last seen and the latest example are mergeable
 * states per group, environment and hour (`error_group_hours`, `error_group_tenants`: the
 * 2026-11-27-10 migration), filled by ClickHouse from the inserted occurrences, so several
 * writers never read-modify-write a group. Statuses users set are appended to
 * `error_group_statuses` (in ClickHouse beside the groups: a group and its status are pruned,
 * exported and sharded together); the latest wins, and a resolved group with an occurrence that
 * started after the resolution reads as regressed, as the SQL store marks it at ingestion.
 */

/** The example tuple: trace id, span id, type, message, stack, then whether each of the last three was NULL. */
type Example = [string, string, string, string, string, number, number, number];

interface GroupFigures {
  group_id: string;
  service: string;
  first_seen: number;
  last_seen: number;
  n: string;
  example: Example;
}

/** A group's latest status change (aliases apart from the columns: ClickHouse substitutes an alias wherever its name appears). */
interface StatusRow {
  group_id: string;
  latest_status: string;
  latest_at: string;
  latest_by: string;
}

/** `(...)` of string literals, for IN. */
export const listOf = (values: readonly string[]) => `(${stringArrayLiteral(values).slice(1, -1)})`;

const hoursTable = (telemetry: ClickHouseTelemetry) => `${telemetry.database}.error_group_hours`;

/** The hour cells in [fromHour, toHour) (no end: every later one), by day partition first. */
export function hourConditions(fromHour: number, toHour: number | undefined, environment: string | undefined): string[] {
  const conditions = [`day >= toDate(${stringLiteral(dayOf(fromHour))})`, `hour >= ${numberLiteral(fromHour)}`];
  if (toHour !== undefined) conditions.push(`day <= toDate(${stringLiteral(dayOf(Math.max(fromHour, toHour - 1)))})`, `hour < ${numberLiteral(toHour)}`);
  if (environment !== undefined) conditions.push(`environment = ${stringLiteral(environment)}`);
  return conditions;
}

/** A group as the SQL store's row, with its example's stack. */
export type StoredErrorGroup = ErrorGroupsTable & { example_stack: string | null };

/** The stored groups of `groupIds` (a subquery or a list), as the SQL store's rows. */
export async function storedGroups(telemetry: ClickHouseTelemetry, groupIds: string): Promise<StoredErrorGroup[]> {
  const [figures, statuses] = await Promise.all([
    telemetry.rows<GroupFigures>(`
      SELECT group_id, any(service) AS service, minMerge(first_seen) AS first_seen, maxMerge(last_seen) AS last_seen,
        countMerge(count) AS n, argMaxMerge(example) AS example
      FROM ${hoursTable(telemetry)} WHERE group_id IN ${groupIds} GROUP BY group_id`),
    telemetry.rows<StatusRow>(`
      SELECT group_id, argMax(status, changed_at) AS latest_status, max(changed_at) AS latest_at, argMax(changed_by, changed_at) AS latest_by
      FROM ${telemetry.database}.error_group_statuses WHERE group_id IN ${groupIds} GROUP BY group_id`),
  ]);
  const statusOf = new Map(statuses.map((row) => [row.group_id, row]));
  return figures.map((row) => groupRow(row, statusOf.get(row.group_id)));
}

function groupRow(figures: GroupFigures, status: StatusRow | undefined): StoredErrorGroup {
  const [traceId, spanId, type, message, stack, typeIsNull, messageIsNull, stackIsNull] = figures.example;
  const error = { type: typeIsNull ? null : type, message: messageIsNull ? null : message, stack: stackIsNull ? null : stack };
  // Every occurrence of a group has the group's fingerprint: its example gives it back.
  const fingerprint = errorFingerprint(figures.service, error);
  const lastSeen = sentDouble(figures.last_seen, 16);
  const changedAt = status === undefined ? null : Number(status.latest_at);
  const resolvedAt = status?.latest_status === 'resolved' ? changedAt : null;
  const stored = (status?.latest_status ?? 'open') as ErrorGroupsTable['status'];
  return {
    group_id: figures.group_id,
    service: figures.service,
    error_type: fingerprint?.type ?? '',
    message: fingerprint?.message ?? '',
    top_frame: fingerprint?.topFrame ?? '',
    example_message: error.message?.slice(0, groupMessageMaxChars) ?? null,
    first_seen: sentDouble(figures.first_seen, 16),
    last_seen: lastSeen,
    count: Number(figures.n),
    example_trace_id: traceId,
    example_span_id: spanId,
    status: resolvedAt !== null && lastSeen > resolvedAt ? 'regressed' : stored,
    status_changed_at: changedAt,
    status_changed_by: status?.latest_by ?? null,
    resolved_at: resolvedAt,
    example_stack: error.stack,
  };
}

async function tenantsAffectedOf(telemetry: ClickHouseTelemetry, groupIds: readonly string[]): Promise<Map<string, number>> {
  if (groupIds.length === 0) return new Map();
  const rows = await telemetry.rows<{ group_id: string; tenants: string }>(
    `SELECT group_id, uniqExact(tenant) AS tenants FROM ${telemetry.database}.error_group_tenants WHERE group_id IN ${listOf(groupIds)} GROUP BY group_id`,
  );
  return new Map(rows.map((row) => [row.group_id, Number(row.tenants)]));
}


/**
 * A page of error groups with occurrences in the range (errors/error-groups-view.ts): the range's
 * counts per group from the hour states, the groups' own figures and statuses, filtered, sorted
 * and paged by keyset here (one row per group with errors in the range), then sparklines and
 * tenants for the page's groups only.
 */
export async function clickHouseErrorGroups(telemetry: ClickHouseTelemetry, nowMs: number, query: ErrorGroupsQuery): Promise<ErrorGroupsResponse> {
  const range = resolveQueryRange(query, nowMs);
  const { fromHour, toHour } = hoursOf(range);
  const sort = query.sort ?? 'lastSeen';
  const limit = query.limit ?? errorGroupsLimitDefault;
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor, sort);
  const cells = hourConditions(fromHour, toHour, query.environment).join(' AND ');

  const [counts, groups] = await Promise.all([
    telemetry.rows<{ group_id: string; n: string }>(`SELECT group_id, countMerge(count) AS n FROM ${hoursTable(telemetry)} WHERE ${cells} GROUP BY group_id`),
    storedGroups(telemetry, `(SELECT DISTINCT group_id FROM ${hoursTable(telemetry)} WHERE ${cells})`),
  ]);
  const rangeCount = new Map(counts.map((row) => [row.group_id, Number(row.n)]));
  const statuses = query.status === undefined ? undefined : statusesOf[query.status];
  const sortValue = (row: ErrorGroupsTable) => (sort === 'count' ? rangeCount.get(row.group_id)! : sort === 'firstSeen' ? Number(row.first_seen) : Number(row.last_seen));
  const matching = groups
    .filter((row) => (query.service === undefined || row.service === query.service) && (statuses === undefined || statuses.includes(row.status)))
    .filter((row) => !after || sortValue(row) < after.value || (sortValue(row) === after.value && row.group_id < after.groupId))
    .sort((a, b) => sortValue(b) - sortValue(a) || (a.group_id < b.group_id ? 1 : a.group_id > b.group_id ? -1 : 0));
  const shown = matching.slice(0, limit);
  const ids = shown.map((row) => row.group_id);

  const { intervalMs, trendStart, bucketCount } = listTrendOf(fromHour, toHour);
  const trends = new Map(ids.map((id) => [id, new Array<number>(bucketCount).fill(0)]));
  const [buckets, tenants] = await Promise.all([
    ids.length === 0
      ? []
      : telemetry.rows<{ group_id: string; bucket: string; n: string }>(`
        SELECT group_id, hour - (hour % ${numberLiteral(intervalMs)}) AS bucket, countMerge(count) AS n FROM ${hoursTable(telemetry)}
        WHERE ${cells} AND group_id IN ${listOf(ids)} GROUP BY group_id, bucket`),
    tenantsAffectedOf(telemetry, ids),
  ]);
  for (const row of buckets) trends.get(row.group_id)![Math.floor((Number(row.bucket) - trendStart) / intervalMs)]! += Number(row.n);

  const last = shown[shown.length - 1];
  return {
    range: rangeEcho(range),
    trend: { start: new Date(trendStart).toISOString(), intervalMs, buckets: bucketCount },
    items: shown.map((row) => ({ ...groupFieldsOf(row, rangeCount.get(row.group_id)!, tenants.get(row.group_id) ?? 0), trend: trends.get(row.group_id)! })),
    limit,
    nextCursor: matching.length > limit && last ? encodeCursor(sort, sortValue(last), last.group_id) : null,
  };
}

async function storedGroup(telemetry: ClickHouseTelemetry, groupId: string): Promise<ErrorGroupsTable> {
  const [group] = /^[0-9a-f]{16}$/.test(groupId) ? await storedGroups(telemetry, listOf([groupId])) : [];
  if (!group) throw new ApiError('error-group-not-found', `No error group has the id "${groupId}".`);
  return group;
}

/** One group over the range (errors/error-groups-view.ts `errorGroupDetail`). */
export async function clickHouseErrorGroup(telemetry: ClickHouseTelemetry, nowMs: number, groupId: string, query: ErrorGroupQuery): Promise<ErrorGroupDetail> {
  const group = await storedGroup(telemetry, groupId);
  const range = resolveQueryRange(query, nowMs);
  const { fromHour, toHour } = hoursOf(range);
  const buckets = trendBucketsFor(range);
  const id = stringLiteral(groupId);
  const cells = `${hourConditions(fromHour, toHour, query.environment).join(' AND ')} AND group_id = ${id}`;
  const occurrences = [...dayConditions(range.fromMs, range.toMs), `error_group_id = ${id}`, ...(query.environment === undefined ? [] : [`environment = ${stringLiteral(query.environment)}`])].join(' AND ');
  const trendQuery =
    buckets.intervalMs >= hourMs
      ? `SELECT hour - (hour % ${numberLiteral(buckets.intervalMs)}) AS bucket, countMerge(count) AS n FROM ${hoursTable(telemetry)} WHERE ${cells} GROUP BY bucket`
      : `SELECT toUInt64(started_at) - (toUInt64(started_at) % ${numberLiteral(buckets.intervalMs)}) AS bucket, count() AS n FROM ${telemetry.database}.occurrences WHERE ${occurrences} GROUP BY bucket`;
  const [perEnvironment, trendRows, tenantRows, tenantsAffected, recentRows] = await Promise.all([
    telemetry.rows<{ environment: string; n: string }>(`SELECT environment, countMerge(count) AS n FROM ${hoursTable(telemetry)} WHERE ${cells} GROUP BY environment`),
    telemetry.rows<{ bucket: string; n: string }>(trendQuery),
    telemetry.rows<{ tenant: string; n: string; last_seen: number }>(`
      SELECT tenant, countMerge(count) AS n, maxMerge(last_seen) AS last_seen FROM ${telemetry.database}.error_group_tenants
      WHERE group_id = ${id} GROUP BY tenant ORDER BY n DESC, tenant LIMIT ${groupTenantsShown}`),
    tenantsAffectedOf(telemetry, [groupId]),
    telemetry.rows<ClickHouseOccurrenceRow>(
      `SELECT * FROM ${telemetry.database}.occurrences WHERE ${occurrences} ORDER BY started_at DESC, id DESC LIMIT ${groupRecentOccurrencesShown}`,
    ),
  ]);
  const environments = perEnvironment
    .map((row) => ({ environment: row.environment, count: Number(row.n) }))
    .sort((a, b) => b.count - a.count || (a.environment < b.environment ? -1 : 1));
  const found = new Map(trendRows.map((row) => [Number(row.bucket), Number(row.n)]));
  const trend = fillBuckets(buckets, found, () => 0).map((count, index) => ({ start: new Date(buckets.firstStartMs + index * buckets.intervalMs).toISOString(), count }));
  return {
    ...groupFieldsOf(group, environments.reduce((sum, row) => sum + row.count, 0), tenantsAffected.get(groupId) ?? 0),
    range: rangeEcho(range),
    trend,
    trendIntervalMs: buckets.intervalMs,
    environments,
    tenants: tenantRows.map((row) => ({ tenantId: row.tenant, count: Number(row.n), lastSeen: new Date(sentDouble(row.last_seen, 16)).toISOString() })),
    recentOccurrences: recentRows.map((row) => occurrenceFromRow(storedOccurrence(row))),
  };
}

/**
 * Records a user's status change (404 for an unknown group); the latest change is the group's
 * status. Changes are appended and the latest `changed_at` wins, so a change made in the same
 * millisecond as the group's latest (or, with clocks apart, before it) is recorded a millisecond
 * after it: two rows with one `changed_at` would leave `argMax` to pick either.
 */
export async function setClickHouseErrorGroupStatus(
  telemetry: ClickHouseTelemetry,
  groupId: string,
  status: ErrorGroupStatusUpdate['status'],
  userId: string,
  nowMs: number,
): Promise<ErrorGroupStatusResponse> {
  const group = await storedGroup(telemetry, groupId);
  const latest = group.status_changed_at;
  const changedAt = latest !== null && latest >= nowMs ? latest + 1 : nowMs;
  await telemetry.command(
    `INSERT INTO ${telemetry.database}.error_group_statuses (group_id, status, changed_at, changed_by) VALUES (${stringLiteral(groupId)}, ${stringLiteral(status)}, ${numberLiteral(changedAt)}, ${stringLiteral(userId)})`,
  );
  return { groupId, status, statusChangedAt: new Date(changedAt).toISOString() };
}

import { sql, type Kysely } from 'kysely';
import { ApiError } from '@playstack/server-kit';
import type { ErrorGroupDatabase } from './error-group-tables.js';
import { occurrenceFromRow } from '../query/occurrence-record.js';
import { rangeEcho } from '../query/read-query.js';
import { resolveQueryRange, type QueryRange } from '../query/query-range.js';
import { fillBuckets, trendBucketsFor, trendIntervalsMs, type TrendInterval } from '../query/trend-interval.js';
import { dayMs } from '../time-units.js';
import { dayOf, hourMs } from './error-group-merge.js';
import type { ErrorGroupStatus, ErrorGroupsTable } from './error-group-tables.js';
import {
  errorGroupsLimitDefault,
  groupRecentOccurrencesShown,
  groupTenantsShown,
  type ErrorGroupDetail,
  type ErrorGroupListItem,
  type ErrorGroupQuery,
  type ErrorGroupsQuery,
  type ErrorGroupsResponse,
} from './error-schemas.js';
import './error-group-error-codes.js';

type Db = Kysely<ErrorGroupDatabase>;
type SortKey = NonNullable<ErrorGroupsQuery['sort']>;

/** The list's sparkline has at most this many buckets, each a whole number of hours. */
const listTrendBucketsMax = 48;
const listTrendIntervals: readonly TrendInterval[] = ['1h', '3h', '6h', '12h', '1d'];

/**
 * The start of the bucket of `intervalMs` (aligned to the epoch) a timestamp column falls in. The
 * size is a literal: PostgreSQL matches GROUP BY to the select list by text, and two parameters never match.
 */
function bucketStartOf(column: 'hour' | 'started_at', intervalMs: number) {
  return sql<number>`${sql.ref(column)} - (${sql.ref(column)} % ${sql.lit(intervalMs)})`;
}

/** The hours a range covers: every hour any part of which lies in it. */
export function hoursOf(range: QueryRange): { fromHour: number; toHour: number } {
  return { fromHour: Math.floor(range.fromMs / hourMs) * hourMs, toHour: Math.ceil(range.toMs / hourMs) * hourMs };
}

export const statusesOf: Record<NonNullable<ErrorGroupsQuery['status']>, readonly ErrorGroupStatus[]> = {
  open: ['open'],
  regressed: ['regressed'],
  resolved: ['resolved'],
  ignored: ['ignored'],
  unresolved: ['open', 'regressed'],
};

const cursorPattern = /^err:(lastSeen|firstSeen|count):(\d{1,16}):([0-9a-f]{16})$/;

export function encodeCursor(sort: SortKey, value: number, groupId: string): string {
  return Buffer.from(`err:${sort}:${value}:${groupId}`).toString('base64url');
}

/** The position a cursor stands for; 400 invalid-cursor for one this service did not hand out for this sort. */
export function decodeCursor(cursor: string, sort: SortKey): { value: number; groupId: string } {
  const match = cursorPattern.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match || match[1] !== sort) throw new ApiError('invalid-cursor', 'cursor is not one this service handed out for this sort; start again without it.');
  return { value: Number(match[2]), groupId: match[3]! };
}

/** The fields every group response carries. */
export function groupFieldsOf(row: ErrorGroupsTable, countInRange: number, tenantsAffected: number) {
  return {
    groupId: row.group_id,
    service: row.service,
    type: row.error_type,
    message: row.message,
    topFrame: row.top_frame,
    exampleMessage: row.example_message,
    status: row.status,
    statusChangedAt: row.status_changed_at === null ? null : new Date(Number(row.status_changed_at)).toISOString(),
    firstSeen: new Date(Number(row.first_seen)).toISOString(),
    lastSeen: new Date(Number(row.last_seen)).toISOString(),
    count: Number(row.count),
    countInRange,
    tenantsAffected,
    exampleTrace: { traceId: row.example_trace_id, spanId: row.example_span_id },
  };
}

async function tenantsAffectedOf(db: Db, groupIds: readonly string[]): Promise<Map<string, number>> {
  if (groupIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('error_group_tenants')
    .select((eb) => ['group_id', eb.fn.countAll().as('tenants')])
    .where('group_id', 'in', groupIds)
    .groupBy('group_id')
    .execute();
  return new Map(rows.map((row) => [row.group_id, Number(row.tenants)]));
}

/**
 * The count rows that cover the hours [fromHour, toHour) once each: the whole UTC days inside from
 * `error_group_days`, the hours at either end from `error_group_hours` (a week reads about 7 + 24
 * rows per group and environment instead of 168).
 */
function countCellsOf(db: Db, fromHour: number, toHour: number, environment: string | undefined) {
  const hours = (from: number, to: number) => {
    let cells = db.selectFrom('error_group_hours').select(['group_id', 'count']).where('hour', '>=', from).where('hour', '<', to);
    if (environment !== undefined) cells = cells.where('environment', '=', environment);
    return cells;
  };
  const fromDay = dayOf(fromHour + dayMs - 1);
  const toDay = dayOf(toHour);
  if (toDay <= fromDay) return hours(fromHour, toHour);
  let days = db.selectFrom('error_group_days').select(['group_id', 'count']).where('day', '>=', fromDay).where('day', '<', toDay);
  if (environment !== undefined) days = days.where('environment', '=', environment);
  return days.unionAll(hours(fromHour, fromDay)).unionAll(hours(toDay, toHour));
}

/** The list's sparkline buckets over the hours [fromHour, toHour): at most `listTrendBucketsMax`, whole hours each. */
export function listTrendOf(fromHour: number, toHour: number): { intervalMs: number; trendStart: number; bucketCount: number } {
  const interval = listTrendIntervals.find((name) => (toHour - fromHour) / trendIntervalsMs[name] <= listTrendBucketsMax) ?? '1d';
  const intervalMs = trendIntervalsMs[interval];
  const trendStart = Math.floor(fromHour / intervalMs) * intervalMs;
  return { intervalMs, trendStart, bucketCount: Math.max(1, Math.ceil((toHour - trendStart) / intervalMs)) };
}

/**
 * A page of error groups with occurrences in the range: the range's per-day and per-hour counts
 * summed per group (index range scans of `error_group_days` and `error_group_hours`), joined with
 * the groups, sorted and paged by keyset; then tenants and sparklines for the page's groups only.
 */
export async function errorGroupsView(db: Db, nowMs: number, query: ErrorGroupsQuery): Promise<ErrorGroupsResponse> {
  const range = resolveQueryRange(query, nowMs);
  const { fromHour, toHour } = hoursOf(range);
  const sort: SortKey = query.sort ?? 'lastSeen';
  const limit = query.limit ?? errorGroupsLimitDefault;
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor, sort);

  const counts = db
    .selectFrom(countCellsOf(db, fromHour, toHour, query.environment).as('cells'))
    .select((eb) => ['cells.group_id', eb.fn.sum<number | string>('cells.count').as('range_count')])
    .groupBy('cells.group_id');

  const sortColumn = sort === 'count' ? 'c.range_count' : sort === 'firstSeen' ? 'g.first_seen' : 'g.last_seen';
  let page = db
    .selectFrom(counts.as('c'))
    .innerJoin('error_groups as g', 'g.group_id', 'c.group_id')
    .selectAll('g')
    .select('c.range_count');
  if (query.service !== undefined) page = page.where('g.service', '=', query.service);
  if (query.status !== undefined) page = page.where('g.status', 'in', statusesOf[query.status]);
  if (after) {
    page = page.where((eb) =>
      eb.or([eb(sortColumn, '<', after.value), eb.and([eb(sortColumn, '=', after.value), eb('g.group_id', '<', after.groupId)])]),
    );
  }
  const rows = await page.orderBy(sortColumn, 'desc').orderBy('g.group_id', 'desc').limit(limit + 1).execute();
  const shown = rows.slice(0, limit);
  const ids = shown.map((row) => row.group_id);

  const { intervalMs, trendStart, bucketCount } = listTrendOf(fromHour, toHour);
  const trends = new Map(ids.map((id) => [id, new Array<number>(bucketCount).fill(0)]));
  if (ids.length > 0) {
    // Summed per bucket in the database: a week of hours for a page of groups is thousands of rows, its buckets a few hundred.
    const bucket = bucketStartOf('hour', intervalMs);
    let hours = db
      .selectFrom('error_group_hours')
      .select((eb) => ['group_id', bucket.as('bucket'), eb.fn.sum<number | string>('count').as('count')])
      .where('group_id', 'in', ids)
      .where('hour', '>=', fromHour)
      .where('hour', '<', toHour)
      .groupBy(['group_id', bucket]);
    if (query.environment !== undefined) hours = hours.where('environment', '=', query.environment);
    for (const row of await hours.execute()) {
      const trend = trends.get(row.group_id)!;
      trend[Math.floor((Number(row.bucket) - trendStart) / intervalMs)]! += Number(row.count);
    }
  }
  const tenants = await tenantsAffectedOf(db, ids);

  const items: ErrorGroupListItem[] = shown.map((row) => ({
    ...groupFieldsOf(row, Number(row.range_count), tenants.get(row.group_id) ?? 0),
    trend: trends.get(row.group_id)!,
  }));
  const last = shown[shown.length - 1];
  const lastValue = (row: (typeof shown)[number]) => Number(sort === 'count' ? row.range_count : sort === 'firstSeen' ? row.first_seen : row.last_seen);
  return {
    range: rangeEcho(range),
    trend: { start: new Date(trendStart).toISOString(), intervalMs, buckets: bucketCount },
    items,
    limit,
    nextCursor: rows.length > limit && last ? encodeCursor(sort, lastValue(last), last.group_id) : null,
  };
}

/** A stored group; 404 error-group-not-found when there is none. */
export async function storedErrorGroup(db: Db, groupId: string): Promise<ErrorGroupsTable> {
  const row = await db.selectFrom('error_groups').selectAll().where('group_id', '=', groupId).executeTakeFirst();
  if (!row) throw new ApiError('error-group-not-found', `No error group has the id "${groupId}".`);
  return row;
}

/**
 * One group over the range: its trend (from the per-hour counts at an hour or more per bucket,
 * else from its occurrences through the group index), environments, most affected tenants and
 * latest occurrences.
 */
export async function errorGroupDetail(db: Db, nowMs: number, groupId: string, query: ErrorGroupQuery): Promise<ErrorGroupDetail> {
  const group = await storedErrorGroup(db, groupId);
  const range = resolveQueryRange(query, nowMs);
  const { fromHour, toHour } = hoursOf(range);
  const environment = query.environment;
  const buckets = trendBucketsFor(range);

  let perEnvironment = db
    .selectFrom('error_group_hours')
    .select((eb) => ['environment', eb.fn.sum<number | string>('count').as('count')])
    .where('group_id', '=', groupId)
    .where('hour', '>=', fromHour)
    .where('hour', '<', toHour)
    .groupBy('environment');
  if (environment !== undefined) perEnvironment = perEnvironment.where('environment', '=', environment);
  const environments = (await perEnvironment.execute())
    .map((row) => ({ environment: row.environment, count: Number(row.count) }))
    .sort((a, b) => b.count - a.count || (a.environment < b.environment ? -1 : 1));

  const found = new Map<number, number>();
  if (buckets.intervalMs >= hourMs) {
    let hours = db.selectFrom('error_group_hours').select(['hour', 'count']).where('group_id', '=', groupId).where('hour', '>=', fromHour).where('hour', '<', toHour);
    if (environment !== undefined) hours = hours.where('environment', '=', environment);
    for (const row of await hours.execute()) {
      const start = Math.floor(Number(row.hour) / buckets.intervalMs) * buckets.intervalMs;
      found.set(start, (found.get(start) ?? 0) + Number(row.count));
    }
  } else {
    const bucketStart = bucketStartOf('started_at', buckets.intervalMs);
    let occurrences = db
      .selectFrom('occurrences')
      .select((eb) => [bucketStart.as('bucket'), eb.fn.countAll().as('count')])
      .where('error_group_id', '=', groupId)
      .where('started_at', '>=', range.fromMs)
      .where('started_at', '<', range.toMs)
      .groupBy(bucketStart);
    if (environment !== undefined) occurrences = occurrences.where('environment', '=', environment);
    for (const row of await occurrences.execute()) found.set(Number(row.bucket), Number(row.count));
  }
  const trend = fillBuckets(buckets, found, () => 0).map((count, index) => ({ start: new Date(buckets.firstStartMs + index * buckets.intervalMs).toISOString(), count }));

  const tenantRows = await db
    .selectFrom('error_group_tenants')
    .select(['tenant_id', 'count', 'last_seen'])
    .where('group_id', '=', groupId)
    .orderBy('count', 'desc')
    .orderBy('tenant_id')
    .limit(groupTenantsShown)
    .execute();
  const tenantsAffected = (await tenantsAffectedOf(db, [groupId])).get(groupId) ?? 0;

  let recent = db
    .selectFrom('occurrences')
    .selectAll()
    .where('error_group_id', '=', groupId)
    .where('started_at', '>=', range.fromMs)
    .where('started_at', '<', range.toMs);
  if (environment !== undefined) recent = recent.where('environment', '=', environment);
  const recentRows = await recent.orderBy('started_at', 'desc').orderBy('id', 'desc').limit(groupRecentOccurrencesShown).execute();

  return {
    ...groupFieldsOf(group, environments.reduce((sum, row) => sum + row.count, 0), tenantsAffected),
    range: rangeEcho(range),
    trend,
    trendIntervalMs: buckets.intervalMs,
    environments,
    tenants: tenantRows.map((row) => ({ tenantId: row.tenant_id, count: Number(row.count), lastSeen: new Date(Number(row.last_seen)).toISOString() })),
    recentOccurrences: recentRows.map(occurrenceFromRow),
  };
}

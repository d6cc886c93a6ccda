import { sql, type Expression, type ExpressionBuilder, type RawBuilder, type SqlBool } from 'kysely';
import { ApiError } from '@playstack/server-kit';
import type { TelemetryDatabase } from '../storage/storage-tables.js';
import { occurrenceFromRow } from './occurrence-record.js';
import { minuteMs, minuteOf } from '../time-units.js';
import { aggregateRollups, type RollupAggregate } from './rollup-aggregate.js';
import { operationTiers } from './rollup-tiers.js';
import type { QueryRange } from './query-range.js';
import { storedAttributeEquals } from './attribute-filter.js';
import {
  httpStatusClassBounds,
  occurrencesLimitMax,
  type HttpStatusClass,
  type Occurrence,
  type OccurrenceDurationsResponse,
  type OccurrenceSearch,
  type OccurrencesResponse,
} from './query-schemas.js';
import { rangeEcho, type ReadQuery } from './read-query.js';
import './query-error-codes.js';

/** Filters the rollups can count and the indexes select: range, service, environment, operation, status. */
export interface IndexedFilters {
  operation?: string | undefined;
  status?: 'ok' | 'error' | undefined;
}

/** Filters checked on the rows themselves (the rollups know nothing of them). */
export interface RowFilters {
  /** `attr.<key>=<value>` filters: [key, value] pairs, all of which must match. */
  attributes?: ReadonlyArray<readonly [string, string]>;
  minDurationMs?: number | undefined;
  maxDurationMs?: number | undefined;
  errorType?: string | undefined;
  httpStatusClass?: HttpStatusClass | undefined;
}

/** How many occurrences row filters check at most (OCCURRENCE_SEARCH_WINDOW). */
export interface SearchBound {
  window: number;
}

export interface OccurrenceListOptions extends IndexedFilters, RowFilters, SearchBound {
  limit: number;
  offset: number;
}

type OccurrenceFilter = (eb: ExpressionBuilder<TelemetryDatabase, 'occurrences'>) => Expression<SqlBool>;
type Conditions = Array<(eb: ExpressionBuilder<TelemetryDatabase, 'occurrences'>) => Expression<SqlBool>>;

function indexedConditions(query: ReadQuery, options: IndexedFilters, fromMs: number, toMs: number): Conditions {
  const { filters } = query;
  return [
    (eb) => eb('started_at', '>=', fromMs),
    (eb) => eb('started_at', '<', toMs),
    ...(filters.service === undefined ? [] : [(eb: ExpressionBuilder<TelemetryDatabase, 'occurrences'>) => eb('service', '=', filters.service!)]),
    ...(filters.environment === undefined ? [] : [(eb: ExpressionBuilder<TelemetryDatabase, 'occurrences'>) => eb('environment', '=', filters.environment!)]),
    ...(options.operation === undefined ? [] : [(eb: ExpressionBuilder<TelemetryDatabase, 'occurrences'>) => eb('operation', '=', options.operation!)]),
    ...(options.status === undefined ? [] : [(eb: ExpressionBuilder<TelemetryDatabase, 'occurrences'>) => eb('status', '=', options.status!)]),
  ];
}

function rowConditions(query: ReadQuery, options: RowFilters): Conditions {
  const statusClass = options.httpStatusClass === undefined ? undefined : httpStatusClassBounds(options.httpStatusClass);
  const conditions: Conditions = (options.attributes ?? []).map(([key, value]) => () => storedAttributeEquals(query.dialect, key, value));
  if (options.minDurationMs !== undefined) conditions.push((eb) => eb('duration_ms', '>=', options.minDurationMs!));
  if (options.maxDurationMs !== undefined) conditions.push((eb) => eb('duration_ms', '<=', options.maxDurationMs!));
  if (options.errorType !== undefined) conditions.push((eb) => eb('error_type', '=', options.errorType!));
  if (statusClass) conditions.push((eb) => eb.and([eb('http_status_code', '>=', statusClass[0]), eb('http_status_code', '<', statusClass[1])]));
  return conditions;
}

const all =
  (conditions: Conditions): OccurrenceFilter =>
  (eb) =>
    eb.and(conditions.map((condition) => condition(eb)));

/** Whether any filter must be checked on the rows (then the search window applies). */
export function hasRowFilters(options: RowFilters): boolean {
  return (
    (options.attributes?.length ?? 0) > 0 ||
    options.minDurationMs !== undefined ||
    options.maxDurationMs !== undefined ||
    options.errorType !== undefined ||
    options.httpStatusClass !== undefined
  );
}

/**
 * Where a search that checks rows stops: the newest `window` occurrences the range and the
 * indexed filters select. `limited` when the range holds more; then `oldest` is the last
 * (started_at, id) checked, and older rows are not searched.
 */
interface SearchWindow {
  size: number;
  limited: boolean;
  oldest?: { startedAt: number; id: number };
}

async function searchWindowOf(query: ReadQuery, options: IndexedFilters & SearchBound): Promise<SearchWindow> {
  const last = await query.db
    .selectFrom('occurrences')
    .select(['started_at', 'id'])
    .where(all(indexedConditions(query, options, query.range.fromMs, query.range.toMs)))
    .orderBy('started_at', 'desc')
    .orderBy('id', 'desc')
    .offset(options.window - 1)
    .limit(1)
    .executeTakeFirst();
  return last ? { size: options.window, limited: true, oldest: { startedAt: Number(last.started_at), id: Number(last.id) } } : { size: options.window, limited: false };
}

/**
 * The indexed filters over the window's part of the range. The window's oldest start is the only
 * lower bound on the start time: SQLite bounds an index range by the first lower bound it meets,
 * so the range's own start beside it would walk the index over the whole range (every row of a
 * day, checked against the window one by one). The pair then cuts at the oldest row exactly.
 */
function windowedConditions(query: ReadQuery, options: IndexedFilters, window: SearchWindow): Conditions {
  const oldest = window.oldest;
  if (!oldest) return indexedConditions(query, options, query.range.fromMs, query.range.toMs);
  return [
    ...indexedConditions(query, options, oldest.startedAt, query.range.toMs),
    (eb) => eb.or([eb('started_at', '>', oldest.startedAt), eb.and([eb('started_at', '=', oldest.startedAt), eb('id', '>=', oldest.id)])]),
  ];
}

function searchEcho(window: SearchWindow): OccurrenceSearch {
  return { window: window.size, limited: window.limited, searchedFrom: window.oldest ? new Date(window.oldest.startedAt).toISOString() : null };
}

async function countRaw(query: ReadQuery, conditions: Conditions): Promise<number> {
  const row = await query.db
    .selectFrom('occurrences')
    .select((eb) => eb.fn.countAll().as('n'))
    .where(all(conditions))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Occurrences of whole minutes per the operation rollups (through their tiers). The service tiers
 * sum operations away, so an operation filter reads the operation tiers, at the rollup's own key.
 */
async function countWholeMinutes(query: ReadQuery, options: IndexedFilters, whole: QueryRange): Promise<number> {
  const [all] = await aggregateRollups(query, {
    table: 'operation_rollups',
    ...(options.operation === undefined ? {} : { tiers: operationTiers }),
    range: whole,
    equals: { service: query.filters.service, environment: query.filters.environment, operation: options.operation },
  });
  return countOfFigures(all, options.status);
}

/** How many occurrences of a status (all when undefined) rollup figures count. */
export function countOfFigures(figures: Pick<RollupAggregate, 'count' | 'errorCount'> | undefined, status: IndexedFilters['status']): number {
  if (!figures) return 0;
  return status === 'ok' ? figures.count - figures.errorCount : status === 'error' ? figures.errorCount : figures.count;
}

/**
 * The exact number of occurrences in a range without counting millions of raw rows: the whole
 * minutes from the rollups (`wholeMinutes`: they count every occurrence the raw rows hold), the
 * partial minutes at either end from the raw rows (`raw`). Both stores count their totals so.
 */
export async function countByMinutes(
  range: QueryRange,
  wholeMinutes: (whole: QueryRange) => Promise<number>,
  raw: (fromMs: number, toMs: number) => Promise<number>,
): Promise<number> {
  const partial = (fromMs: number, toMs: number) => (toMs <= fromMs ? Promise.resolve(0) : raw(fromMs, toMs));
  const wholeFromMs = Math.ceil(range.fromMs / minuteMs) * minuteMs;
  const wholeToMs = minuteOf(range.toMs);
  if (wholeToMs <= wholeFromMs) return partial(range.fromMs, range.toMs);
  const [whole, head, tail] = await Promise.all([wholeMinutes({ fromMs: wholeFromMs, toMs: wholeToMs }), partial(range.fromMs, wholeFromMs), partial(wholeToMs, range.toMs)]);
  return whole + head + tail;
}

/**
 * The exact number of occurrences the indexed filters select: whole minutes from the rollups
 * (written in the same transaction as the raw rows, so they agree), the rest from the raw rows.
 */
function countIndexed(query: ReadQuery, options: IndexedFilters): Promise<number> {
  return countByMinutes(
    query.range,
    (whole) => countWholeMinutes(query, options, whole),
    (fromMs, toMs) => countRaw(query, indexedConditions(query, options, fromMs, toMs)),
  );
}

/**
 * A page of occurrences, newest first, with the total matching the query. Without row filters the
 * total is exact over the whole range; with them, rows are checked in the search window only (the
 * newest `window` occurrences the range and the indexed filters select), which
 * bounds the cost of a search whatever the store holds; `search` says where it stopped.
 */
export async function occurrencesView(query: ReadQuery, options: OccurrenceListOptions): Promise<OccurrencesResponse> {
  const limit = Math.min(options.limit, occurrencesLimitMax);
  const indexed = indexedConditions(query, options, query.range.fromMs, query.range.toMs);
  const page = (conditions: Conditions) =>
    query.db.selectFrom('occurrences').selectAll().where(all(conditions)).orderBy('started_at', 'desc').orderBy('id', 'desc').limit(limit).offset(options.offset).execute();
  if (!hasRowFilters(options)) {
    const [rows, total] = await Promise.all([page(indexed), countIndexed(query, options)]);
    return { items: rows.map(occurrenceFromRow), total, limit, offset: options.offset, search: null };
  }
  const window = await searchWindowOf(query, options);
  const conditions = [...windowedConditions(query, options, window), ...rowConditions(query, options)];
  // One pass over the window checks the rows once: the ids of every match (at most the window)
  // give the total and the page, whose rows are then read by id.
  const matches = await query.db.selectFrom('occurrences').select('id').where(all(conditions)).orderBy('started_at', 'desc').orderBy('id', 'desc').execute();
  const pageIds = matches.slice(options.offset, options.offset + limit).map((row) => Number(row.id));
  const rows =
    pageIds.length === 0 ? [] : await query.db.selectFrom('occurrences').selectAll().where('id', 'in', pageIds).orderBy('started_at', 'desc').orderBy('id', 'desc').execute();
  return { items: rows.map(occurrenceFromRow), total: matches.length, limit, offset: options.offset, search: searchEcho(window) };
}

/** Distribution bins per decade of milliseconds (each bin about 26% wide). */
export const durationBinsPerDecade = 10;

/** Windows up to this many rows are binned from one array of codes on SQLite (a few bytes a row), larger ones by GROUP BY. */
export const durationCodesWindowMax = 1_000_000;

type BinCounts = Map<number, { count: number; errorCount: number }>;

function addToBin(bins: BinCounts, bin: number, count: number, errorCount: number): void {
  const existing = bins.get(bin);
  if (existing) {
    existing.count += count;
    existing.errorCount += errorCount;
  } else {
    bins.set(bin, { count, errorCount });
  }
}

/**
 * The window's rows per bin on SQLite, from one array of codes (`bin * 2 + 1` for an error,
 * `bin * 2` otherwise) that this folds: SQLite's GROUP BY puts every row through a sorter, which
 * took half of the chart's time over a window of 50,000 rows (docs/observability-read-api.md).
 */
async function binsFromCodes(query: ReadQuery, conditions: Conditions, bin: RawBuilder<number>): Promise<BinCounts> {
  const row = await query.db
    .selectFrom('occurrences')
    .select(sql<string>`json_group_array(cast(${bin} as integer) * 2 + (status = 'error'))`.as('codes'))
    .where(all(conditions))
    .executeTakeFirstOrThrow();
  const bins: BinCounts = new Map();
  for (const code of JSON.parse(row.codes) as number[]) {
    const index = Math.floor(code / 2);
    addToBin(bins, index, 1, code - index * 2);
  }
  return bins;
}

async function binsGrouped(query: ReadQuery, conditions: Conditions, bin: RawBuilder<number>): Promise<BinCounts> {
  const rows = await query.db
    .selectFrom('occurrences')
    .select((eb) => [bin.as('bin'), eb.fn.countAll().as('n'), eb.fn.count(eb.case().when('status', '=', 'error').then(1).end()).as('errors')])
    .where(all(conditions))
    .groupBy(bin)
    .execute();
  const bins: BinCounts = new Map();
  for (const row of rows) addToBin(bins, Number(row.bin), Number(row.n), Number(row.errors));
  return bins;
}

/**
 * How the durations of the matching occurrences spread (the duration filters left out: this is what
 * the dashboard's brush selects them from), in log-scale bins; rows checked in the search window.
 */
export async function occurrenceDurationsView(query: ReadQuery, options: IndexedFilters & Omit<RowFilters, 'minDurationMs' | 'maxDurationMs'> & SearchBound): Promise<OccurrenceDurationsResponse> {
  const window = await searchWindowOf(query, options);
  const conditions = [...windowedConditions(query, options, window), ...rowConditions(query, options)];
  // Durations at or below 1 µs share the lowest bin; PostgreSQL's log() is base 10, as SQLite's log10().
  const log10 = query.dialect === 'postgres' ? sql`log(greatest(duration_ms, 0.001))` : sql`log10(max(duration_ms, 0.001))`;
  const bin = sql<number>`floor(${log10} * ${sql.lit(durationBinsPerDecade)})`;
  const counted =
    query.dialect === 'sqlite' && window.size <= durationCodesWindowMax ? await binsFromCodes(query, conditions, bin) : await binsGrouped(query, conditions, bin);
  const bounds = (index: number) => Math.round(10 ** (index / durationBinsPerDecade) * 1000) / 1000;
  const bins = [...counted.entries()]
    .sort(([a], [b]) => a - b)
    .map(([index, figures]) => ({ fromMs: bounds(index), toMs: bounds(index + 1), count: figures.count, errorCount: figures.errorCount }));
  return { ...rangeEcho(query.range), bins, total: bins.reduce((sum, b) => sum + b.count, 0), search: searchEcho(window) };
}

// Ids are below 2^53: longer digit strings cannot name a stored occurrence.
const occurrenceIdPattern = /^[1-9][0-9]{0,14}$/;

/** One occurrence by the id the service assigned; 404 when there is none. */
export async function occurrenceById(query: Pick<ReadQuery, 'db'>, id: string): Promise<Occurrence> {
  const row = occurrenceIdPattern.test(id)
    ? await query.db.selectFrom('occurrences').selectAll().where('id', '=', Number(id)).executeTakeFirst()
    : undefined;
  if (!row) throw new ApiError('occurrence-not-found', `No occurrence has the id "${id}".`);
  return occurrenceFromRow(row);
}

import { ApiError } from '@playstack/server-kit';
import { spelledVerbatim } from '../../query/attribute-filter.js';
import { countByMinutes, countOfFigures, durationBinsPerDecade, hasRowFilters, type IndexedFilters, type OccurrenceListOptions, type RowFilters, type SearchBound } from '../../query/occurrences-view.js';
import { occurrenceFromRow } from '../../query/occurrence-record.js';
import type { QueryRange } from '../../query/query-range.js';
import {
  httpStatusClassBounds,
  occurrencesLimitMax,
  type LookupResponse,
  type Occurrence,
  type OccurrenceDurationsResponse,
  type OccurrenceSearch,
  type OccurrencesResponse,
} from '../../query/query-schemas.js';
import { rangeEcho, type TelemetryRead } from '../../query/read-query.js';
import '../../query/query-error-codes.js';
import { dayMs } from '../../time-units.js';
import { numberLiteral, stringLiteral } from './clickhouse-literal.js';
import { storedOccurrence, type ClickHouseOccurrenceRow, type ClickHouseTelemetry } from './clickhouse-telemetry.js';
import { dayOf } from './clickhouse-writer.js';

/** Occurrences a ClickHouse read selects by day partition, start and key columns. */
export function dayConditions(fromMs: number, toMs: number): string[] {
  return [
    `day >= toDate(${stringLiteral(dayOf(fromMs))})`,
    `day <= toDate(${stringLiteral(dayOf(Math.max(fromMs, toMs - 1)))})`,
    `started_at >= ${numberLiteral(fromMs)}`,
    `started_at < ${numberLiteral(toMs)}`,
  ];
}

function indexedConditions(read: TelemetryRead, options: IndexedFilters): string[] {
  const { filters, range } = read;
  const conditions = dayConditions(range.fromMs, range.toMs);
  if (filters.service !== undefined) conditions.push(`service = ${stringLiteral(filters.service)}`);
  if (filters.environment !== undefined) conditions.push(`environment = ${stringLiteral(filters.environment)}`);
  if (options.operation !== undefined) conditions.push(`operation = ${stringLiteral(options.operation)}`);
  if (options.status !== undefined) conditions.push(`status = ${stringLiteral(options.status)}`);
  return conditions;
}

/**
 * `attributeEquals` on ClickHouse 18.16, which has no JSON path functions: the raw JSON text of
 * the key's value (visitParamExtractRaw; attributes are flat JSON.stringify output) equals the
 * value quoted as JSON or as written (a number or boolean). The substring test first, as the SQL
 * store does, where the stored text must spell the value.
 */
export function attributeCondition(key: string, value: string): string {
  const name = stringLiteral(key);
  const candidates = `(${stringLiteral(JSON.stringify(value))}, ${stringLiteral(value)})`;
  const matches = (column: string) => `visitParamExtractRaw(ifNull(${column}, ''), ${name}) IN ${candidates}`;
  const exact = `(${matches('attributes')} OR ${matches('resource_attributes')})`;
  if (!spelledVerbatim(value)) return exact;
  const contains = (column: string) => `position(ifNull(${column}, ''), ${stringLiteral(value)}) > 0`;
  return `((${contains('attributes')} OR ${contains('resource_attributes')}) AND ${exact})`;
}

function rowConditions(options: RowFilters): string[] {
  const conditions = (options.attributes ?? []).map(([key, value]) => attributeCondition(key, value));
  if (options.minDurationMs !== undefined) conditions.push(`duration_ms >= ${numberLiteral(options.minDurationMs)}`);
  if (options.maxDurationMs !== undefined) conditions.push(`duration_ms <= ${numberLiteral(options.maxDurationMs)}`);
  if (options.errorType !== undefined) conditions.push(`error_type = ${stringLiteral(options.errorType)}`);
  if (options.httpStatusClass !== undefined) {
    const [from, to] = httpStatusClassBounds(options.httpStatusClass);
    conditions.push(`http_status_code >= ${from} AND http_status_code < ${to}`);
  }
  return conditions;
}

const newestFirst = 'ORDER BY started_at DESC, id DESC';

interface SearchWindow {
  size: number;
  /** The oldest occurrence checked, when the range holds at least the window. */
  oldestStartedAt: number | undefined;
}

/**
 * The newest `window` occurrences the range and the indexed filters select, as a subquery, and
 * where it stops: the same window the SQL store searches (occurrences-view.ts).
 */
async function searchWindowOf(telemetry: ClickHouseTelemetry, read: TelemetryRead, options: IndexedFilters & SearchBound): Promise<{ window: SearchWindow; from: string }> {
  const oldest = await nthNewestStart(telemetry, read, options, options.window);
  const conditions = indexedConditions(startingAt(read, oldest), options);
  return {
    window: { size: options.window, oldestStartedAt: oldest },
    from: `(SELECT * FROM ${telemetry.database}.occurrences WHERE ${conditions.join(' AND ')} ${newestFirst} LIMIT ${numberLiteral(options.window)})`,
  };
}

function searchEcho(window: SearchWindow): OccurrenceSearch {
  const oldest = window.oldestStartedAt;
  return { window: window.size, limited: oldest !== undefined, searchedFrom: oldest === undefined ? null : new Date(oldest).toISOString() };
}

/**
 * The read from `startedAt` on (the whole read when undefined): its rows then come from the day
 * partitions and granules of that part only. A millisecond early, since starts come back as
 * decimal text; the order and LIMIT of the query decide.
 */
function startingAt(read: TelemetryRead, startedAt: number | undefined): TelemetryRead {
  if (startedAt === undefined) return read;
  return { ...read, range: { ...read.range, fromMs: Math.max(read.range.fromMs, Math.floor(startedAt) - 1) } };
}

/** The first window `nthNewestStart` looks in, and how much each next one is longer. */
const firstWindowMs = 60_000;
const windowGrowth = 16;

/**
 * The start of the `n`th newest occurrence the range and the indexed filters select (undefined
 * when there are fewer). Looked for in the range's last minute, then in windows 16 times longer
 * until one holds `n` or the window is the whole range: ClickHouse 18.16 does not read a table in
 * its key's order, so a top-n over the whole range sorts every start in it (14 million over 24 h
 * at 100 million spans a week), where a page of the newest needs the last minutes. The windows
 * read the starts of the granules they cover (the key is service, then start), so the last one
 * reads no more than the one read over the whole range would, and the earlier ones a 16th of it
 * together.
 */
async function nthNewestStart(telemetry: ClickHouseTelemetry, read: TelemetryRead, options: IndexedFilters, n: number): Promise<number | undefined> {
  const { fromMs, toMs } = read.range;
  for (let windowMs = firstWindowMs; ; windowMs *= windowGrowth) {
    const windowFromMs = Math.max(fromMs, toMs - windowMs);
    const conditions = indexedConditions({ ...read, range: { ...read.range, fromMs: windowFromMs } }, options);
    const [row] = await telemetry.rows<{ started_at: number }>(
      `SELECT started_at FROM ${telemetry.database}.occurrences WHERE ${conditions.join(' AND ')} ORDER BY started_at DESC LIMIT ${numberLiteral(n - 1)}, 1`,
    );
    if (row !== undefined) return Number(row.started_at);
    if (windowFromMs <= fromMs) return undefined;
  }
}

/**
 * The exact number of occurrences the indexed filters select, as the SQL store counts it: whole
 * minutes from the tiers (fed by the same inserts as the raw rows), the partial minutes at either
 * end from the raw rows. Counting the raw rows of 7 days took 1.2 s at 100 million spans.
 */
function countIndexed(telemetry: ClickHouseTelemetry, read: TelemetryRead, options: IndexedFilters): Promise<number> {
  const { filters } = read;
  return countByMinutes(
    read.range,
    async (whole) => {
      const [all] = await telemetry.rollups.aggregate({
        table: 'operation_rollups',
        range: whole,
        equals: { service: filters.service, environment: filters.environment, operation: options.operation },
      });
      return countOfFigures(all, options.status);
    },
    async (fromMs, toMs) => {
      const conditions = indexedConditions({ ...read, range: { fromMs, toMs } }, options);
      const [counted] = await telemetry.rows<{ n: string }>(`SELECT count() AS n FROM ${telemetry.database}.occurrences WHERE ${conditions.join(' AND ')}`);
      return Number(counted?.n ?? 0);
    },
  );
}

/** A page of occurrences, newest first, with the total: the SQL store's answer (occurrences-view.ts) from ClickHouse. */
export async function clickHouseOccurrences(telemetry: ClickHouseTelemetry, read: TelemetryRead, options: OccurrenceListOptions): Promise<OccurrencesResponse> {
  const limit = Math.min(options.limit, occurrencesLimitMax);
  const page = async (from: string, where: readonly string[]) => {
    const filter = where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`;
    const [rows, [counted]] = await Promise.all([
      telemetry.rows<ClickHouseOccurrenceRow>(`SELECT * FROM ${from} ${filter} ${newestFirst} LIMIT ${numberLiteral(options.offset)}, ${numberLiteral(limit)}`),
      telemetry.rows<{ n: string }>(`SELECT count() AS n FROM ${from} ${filter}`),
    ]);
    return { items: rows.map((row) => occurrenceFromRow(storedOccurrence(row))), total: Number(counted?.n ?? 0) };
  };
  if (!hasRowFilters(options)) {
    // The page's rows are read whole only from the start of its last one on: that start is found
    // first in the one column (sorting whole rows of a day to keep 50 read every column of it).
    const last = await nthNewestStart(telemetry, read, options, options.offset + limit);
    const onPage = indexedConditions(startingAt(read, last), options);
    const [rows, total] = await Promise.all([
      telemetry.rows<ClickHouseOccurrenceRow>(
        `SELECT * FROM ${telemetry.database}.occurrences WHERE ${onPage.join(' AND ')} ${newestFirst} LIMIT ${numberLiteral(options.offset)}, ${numberLiteral(limit)}`,
      ),
      countIndexed(telemetry, read, options),
    ]);
    return { items: rows.map((row) => occurrenceFromRow(storedOccurrence(row))), total, limit, offset: options.offset, search: null };
  }
  const { window, from } = await searchWindowOf(telemetry, read, options);
  const found = await page(from, rowConditions(options));
  return { ...found, limit, offset: options.offset, search: searchEcho(window) };
}

/** How the durations of the matching occurrences spread, in the SQL store's log-scale bins, over the search window. */
export async function clickHouseOccurrenceDurations(
  telemetry: ClickHouseTelemetry,
  read: TelemetryRead,
  options: IndexedFilters & Omit<RowFilters, 'minDurationMs' | 'maxDurationMs'> & SearchBound,
): Promise<OccurrenceDurationsResponse> {
  const { window, from } = await searchWindowOf(telemetry, read, options);
  const where = rowConditions(options);
  const rows = await telemetry.rows<{ bin: number; n: string; errors: string }>(
    `SELECT floor(log10(greatest(duration_ms, 0.001)) * ${durationBinsPerDecade}) AS bin, count() AS n, countIf(status = 'error') AS errors
      FROM ${from} ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`} GROUP BY bin ORDER BY bin`,
  );
  const bounds = (index: number) => Math.round(10 ** (index / durationBinsPerDecade) * 1000) / 1000;
  const bins = rows.map((row) => {
    const index = Number(row.bin);
    return { fromMs: bounds(index), toMs: bounds(index + 1), count: Number(row.n), errorCount: Number(row.errors) };
  });
  return { ...rangeEcho(read.range), bins, total: bins.reduce((sum, bin) => sum + bin.count, 0), search: searchEcho(window) };
}

// The writer's ids: the start in base 36 (it names the day partition), then 8 random bytes.
const clickHouseIdPattern = /^([0-9a-z]{1,11})-[0-9a-f]{16}$/;

/** One occurrence by its id, read from the one day partition the id names; 404 when there is none. */
export async function clickHouseOccurrenceById(telemetry: ClickHouseTelemetry, id: string): Promise<Occurrence> {
  const match = clickHouseIdPattern.exec(id);
  const startedAt = match ? parseInt(match[1]!, 36) : Number.NaN;
  const [row] = Number.isSafeInteger(startedAt)
    ? await telemetry.rows<ClickHouseOccurrenceRow>(
        `SELECT * FROM ${telemetry.database}.occurrences WHERE day = toDate(${stringLiteral(dayOf(startedAt))}) AND id = ${stringLiteral(id)} LIMIT 1`,
      )
    : [];
  if (!row) throw new ApiError('occurrence-not-found', `No occurrence has the id "${id}".`);
  return occurrenceFromRow(storedOccurrence(row));
}

/**
 * What a pasted id names (query/trace-view.ts `lookupId`): a trace through `trace_index`; a span
 * by its id over every partition (no index holds span ids: a column scan).
 */
export async function clickHouseLookup(telemetry: ClickHouseTelemetry, idParam: string): Promise<LookupResponse> {
  const id = idParam.toLowerCase();
  if (id.length === 32) {
    const [row] = await telemetry.rows<{ trace_id: string }>(`SELECT trace_id FROM ${telemetry.database}.trace_index WHERE trace_id = ${stringLiteral(id)} LIMIT 1`);
    if (row) return { kind: 'trace', traceId: id, spanId: null, occurrenceId: null };
    throw new ApiError('trace-not-found', `No trace with the id ${id} is stored (it may not have been received, or retention has removed it).`);
  }
  const [row] = await telemetry.rows<{ id: string; trace_id: string }>(
    `SELECT id, trace_id FROM ${telemetry.database}.occurrences WHERE span_id = ${stringLiteral(id)} ORDER BY started_at DESC LIMIT 1`,
  );
  if (row) return { kind: 'span', traceId: row.trace_id, spanId: id, occurrenceId: row.id };
  throw new ApiError('trace-not-found', `No span with the id ${id} is stored (it may not have been received, or retention has removed it).`);
}

/** The range's whole days, for reads that must see a trace's other spans (a day either side). */
export function daysAround(range: QueryRange, marginDays: number): string[] {
  return [`day >= toDate(${stringLiteral(dayOf(range.fromMs - marginDays * dayMs))})`, `day <= toDate(${stringLiteral(dayOf(range.toMs + marginDays * dayMs))})`];
}

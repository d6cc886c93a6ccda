import { bodyWordsPattern, type ExportedLogRecord, type LogCount, type LogPageRequest, type LogSelection, type LogStore, type StoredLogRecord, type TenantLogCount, type TenantLogCountRequest } from '../../logs/index.js';
import type { QueryRange } from '../../query/query-range.js';
import type { ExportBatches, ExportRequest } from '../../storage/telemetry-export.js';
import { dayMs, minuteMs } from '../../time-units.js';
import { exportClickHouseLogRecords } from './clickhouse-export.js';
import { numberLiteral, stringLiteral } from './clickhouse-literal.js';
import { attributeCondition } from './clickhouse-occurrences.js';
import type { ClickHouseTelemetry } from './clickhouse-telemetry.js';
import { dayOf } from './clickhouse-writer.js';

/** The log store's tables: retention drops their day partitions. */
const logTables = ['logs', 'log_trace_days', 'log_counts', 'log_tenant_counts'] as const;

/** uids take the low 53 bits of an id (clickhouse-log-rows.ts), the time in ms the bits above. */
const uidBits = 53n;
const uidMask = (1n << uidBits) - 1n;
const idPattern = /^[1-9][0-9]{0,31}$/;

/** The columns a record is read with (its day aside). */
const recordColumns = [
  'time_ms', 'uid', 'time_ns', 'observed_ms', 'severity_number', 'severity_text', 'body', 'body_json', 'event_name', 'service',
  'environment', 'service_version', 'instance', 'scope_name', 'scope_version', 'trace_id', 'span_id', 'flags', 'tenant_id',
  'attributes', 'resource_attributes', 'received_at',
].join(', ');

/** A record as JSONEachRow gives it: 64-bit integers as text, no trace as ''. */
type ClickHouseLogRow = Omit<StoredLogRecord, 'id' | 'time_ms' | 'observed_ms' | 'received_at'> & { time_ms: string; uid: string; observed_ms: string; received_at: string };

function storedRecord(row: ClickHouseLogRow): StoredLogRecord {
  const { uid, ...rest } = row;
  return {
    ...rest,
    id: ((BigInt(row.time_ms) << uidBits) | BigInt(uid)).toString(),
    time_ms: Number(row.time_ms),
    observed_ms: Number(row.observed_ms),
    received_at: Number(row.received_at),
    trace_id: row.trace_id === '' ? null : row.trace_id,
  };
}

/** The time and uid an id stands for. */
function positionOf(id: string): { timeMs: number; uid: number } {
  const value = BigInt(id);
  return { timeMs: Number(value >> uidBits), uid: Number(value & uidMask) };
}

function dayRange(fromMs: number, toMs: number): string[] {
  return [`day >= toDate(${stringLiteral(dayOf(fromMs))})`, `day <= toDate(${stringLiteral(dayOf(Math.max(fromMs, toMs - 1)))})`];
}

/** The minutes touching a range (as every count view reads them): [first, end). */
function minutesOf(range: QueryRange): { first: number; end: number } {
  return { first: range.fromMs - (range.fromMs % minuteMs), end: Math.ceil(range.toMs / minuteMs) * minuteMs };
}

/**
 * Log records in ClickHouse (telemetry/clickhouse; written by ClickHouseWriter with the
 * occurrences): the same answers as the SQL log store. An id is the record's millisecond and its
 * uid (a decimal number, time-ordered: ids sort as the records' times do, a millisecond's records
 * by arrival). Text search is a word pattern over the lowercased body (log-text-search.ts), the
 * trend without words, traces or attributes and the tenant counts come from per-minute counts
 * ClickHouse sums, a trace's records from the days `log_trace_days` names, retention drops days.
 */
export class ClickHouseLogStore implements LogStore {
  readonly #telemetry: ClickHouseTelemetry;

  constructor(telemetry: ClickHouseTelemetry) {
    this.#telemetry = telemetry;
  }

  get #table(): string {
    return `${this.#telemetry.database}.logs`;
  }

  isLogId(text: string): boolean {
    if (!idPattern.test(text)) return false;
    return BigInt(text) >> uidBits <= BigInt(Number.MAX_SAFE_INTEGER);
  }

  /** The conditions of a selection but its days and times. */
  #conditions(selection: LogSelection): string[] {
    const conditions: string[] = [];
    const { filters } = selection;
    if (filters.service !== undefined) conditions.push(`service = ${stringLiteral(filters.service)}`);
    if (filters.environment !== undefined) conditions.push(`environment = ${stringLiteral(filters.environment)}`);
    if (selection.severityMin !== undefined) conditions.push(`severity_number >= ${numberLiteral(selection.severityMin)}`);
    if (selection.traceId !== undefined) conditions.push(`trace_id = ${stringLiteral(selection.traceId)}`);
    for (const term of selection.terms ?? []) conditions.push(`match(lowerUTF8(ifNull(body, '')), ${stringLiteral(bodyWordsPattern(term))})`);
    for (const [key, value] of selection.attributes ?? []) conditions.push(attributeCondition(key, value));
    return conditions;
  }

  /** Records in id order (time in ms, then arrival: keyset paging's), or with `byTime` in time order to the nanosecond, then arrival. */
  async #records(where: readonly string[], order: 'DESC' | 'ASC', limit: number, byTime = false): Promise<StoredLogRecord[]> {
    const rows = await this.#telemetry.rows<ClickHouseLogRow>(
      `SELECT ${recordColumns} FROM ${this.#table} WHERE ${where.join(' AND ')} ORDER BY time_ms ${order}, ${byTime ? `time_ns ${order}, ` : ''}uid ${order} LIMIT ${numberLiteral(limit)}`,
    );
    return rows.map(storedRecord);
  }

  /**
   * Newest first: the newest day of the range first (where a page usually fills), then the rest
   * of the range at once if the page is not full: without reading in key order (not in 18.16),
   * ClickHouse sorts every matching row of what it is asked, so it is asked for less first.
   */
  async search(request: LogPageRequest): Promise<StoredLogRecord[]> {
    const { fromMs } = request.range;
    let toMs = request.range.toMs;
    const conditions = this.#conditions(request);
    if (request.beforeId !== undefined) {
      const before = positionOf(request.beforeId);
      conditions.push(`(time_ms < ${numberLiteral(before.timeMs)} OR (time_ms = ${numberLiteral(before.timeMs)} AND uid < ${numberLiteral(before.uid)}))`);
      toMs = Math.min(toMs, before.timeMs + 1);
    }
    if (toMs <= fromMs) return [];
    const times = (from: number, to: number) => [...dayRange(from, to), `time_ms >= ${numberLiteral(from)}`, `time_ms < ${numberLiteral(to)}`];
    const lastDayStart = Math.max(fromMs, toMs - 1 - ((toMs - 1) % dayMs));
    const found = await this.#records([...times(lastDayStart, toMs), ...conditions], 'DESC', request.limit);
    if (found.length >= request.limit || lastDayStart <= fromMs) return found;
    return [...found, ...(await this.#records([...times(fromMs, lastDayStart), ...conditions], 'DESC', request.limit - found.length))];
  }

  async trend(selection: LogSelection, bucketMs: number): Promise<LogCount[]> {
    const bucket = (column: string) => `intDiv(${column}, ${numberLiteral(bucketMs)}) * ${numberLiteral(bucketMs)}`;
    const raw = selection.terms !== undefined || selection.traceId !== undefined || (selection.attributes?.length ?? 0) > 0;
    let rows: Array<{ bucket: string; severity_number: number; count: string }>;
    if (raw) {
      // Counted from the records themselves: the counts know no words, traces or attributes.
      const { fromMs, toMs } = selection.range;
      const where = [...dayRange(fromMs, toMs), `time_ms >= ${numberLiteral(fromMs)}`, `time_ms < ${numberLiteral(toMs)}`, ...this.#conditions(selection)];
      rows = await this.#telemetry.rows(
        `SELECT ${bucket('time_ms')} AS bucket, severity_number, count() AS count FROM ${this.#table} WHERE ${where.join(' AND ')} GROUP BY bucket, severity_number`,
      );
    } else {
      const minutes = minutesOf(selection.range);
      if (minutes.end <= minutes.first) return [];
      const where = [...dayRange(minutes.first, minutes.end), `minute >= ${numberLiteral(minutes.first)}`, `minute < ${numberLiteral(minutes.end)}`];
      if (selection.filters.service !== undefined) where.push(`service = ${stringLiteral(selection.filters.service)}`);
      if (selection.filters.environment !== undefined) where.push(`environment = ${stringLiteral(selection.filters.environment)}`);
      if (selection.severityMin !== undefined) where.push(`severity_number >= ${numberLiteral(selection.severityMin)}`);
      rows = await this.#telemetry.rows(
        `SELECT ${bucket('minute')} AS bucket, severity_number, sum(count) AS count FROM ${this.#telemetry.database}.log_counts WHERE ${where.join(' AND ')} GROUP BY bucket, severity_number`,
      );
    }
    return rows.map((row) => ({ bucketStartMs: Number(row.bucket), severityNumber: Number(row.severity_number), count: Number(row.count) }));
  }

  async tenantCounts(request: TenantLogCountRequest): Promise<TenantLogCount[]> {
    const minutes = minutesOf(request.range);
    if (minutes.end <= minutes.first) return [];
    const where = [...dayRange(minutes.first, minutes.end), `minute >= ${numberLiteral(minutes.first)}`, `minute < ${numberLiteral(minutes.end)}`];
    if (request.tenantId !== undefined) where.push(`tenant = ${stringLiteral(request.tenantId)}`);
    if (request.filters.service !== undefined) where.push(`service = ${stringLiteral(request.filters.service)}`);
    if (request.filters.environment !== undefined) where.push(`environment = ${stringLiteral(request.filters.environment)}`);
    const bucket = request.bucketMs === undefined ? '0' : `intDiv(minute, ${numberLiteral(request.bucketMs)}) * ${numberLiteral(request.bucketMs)}`;
    const rows = await this.#telemetry.rows<{ tenant: string; service: string; environment: string; bucket: string; count: string }>(
      `SELECT tenant, service, environment, ${bucket} AS bucket, sum(count) AS count FROM ${this.#telemetry.database}.log_tenant_counts
        WHERE ${where.join(' AND ')} GROUP BY tenant, service, environment, bucket`,
    );
    return rows.map((row) => ({ tenantId: row.tenant, service: row.service, environment: row.environment, bucketStartMs: Number(row.bucket), count: Number(row.count) }));
  }

  /** Earliest first, from the days `log_trace_days` lists for the trace. */
  traceLogs(traceId: string, limit: number): Promise<StoredLogRecord[]> {
    const id = stringLiteral(traceId);
    return this.#records([`day IN (SELECT DISTINCT day FROM ${this.#telemetry.database}.log_trace_days WHERE trace_id = ${id})`, `trace_id = ${id}`], 'ASC', limit, true);
  }

  exportRecords(request: ExportRequest): ExportBatches<ExportedLogRecord> {
    return exportClickHouseLogRecords(this.#telemetry, request);
  }

  /** Drops the log tables' day partitions past the cutoff (whole UTC days, as the occurrences'); returns the records dropped. */
  async prune(cutoffMs: number): Promise<number> {
    return (await this.#telemetry.dropDaysBefore(cutoffMs, logTables)).get('logs') ?? 0;
  }
}

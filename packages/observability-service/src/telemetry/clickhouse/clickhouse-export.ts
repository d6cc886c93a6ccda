import type { ErrorGroupStatusChange } from '../../errors/error-groups.js';
import type { ExportedLogRecord } from '../../logs/index.js';
import { exportedOccurrenceColumns } from '../../storage/occurrence-export.js';
import type { ExportedOccurrence } from '../../storage/storage-tables.js';
import { splitPosition, type ExportBatches, type ExportRequest } from '../../storage/telemetry-export.js';
import { dayMs, minuteMs } from '../../time-units.js';
import { numberLiteral, sentDouble, stringLiteral } from './clickhouse-literal.js';
import { logInsertColumns } from './clickhouse-log-rows.js';
import type { ClickHouseTelemetry } from './clickhouse-telemetry.js';
import { dayOf } from './clickhouse-writer.js';

/**
 * Reading ClickHouse's raw telemetry out in order for the copy command (storage/telemetry-export.ts).
 * ClickHouse sorts whatever a query matches before LIMIT applies (18.16 cannot read in key
 * order), so a keyset page over a whole range would cost the whole rest of the range each time.
 * Each day is cut instead into time slices of about a batch (from per-minute counts, and
 * per-millisecond counts inside a minute holding more than a batch), and each slice is read in
 * keyset pages: every query reads about the rows it returns, and memory holds one day's counts
 * at most.
 */

/** The last day a ClickHouse `Date` is asked about (its range ends in 2105). */
const lastDayMs = Date.UTC(2100, 0, 1) - dayMs;

/** How one table is exported: its time column (whole milliseconds), its tie-breaking key and the columns read (as JSONEachRow gives them, `Raw`). */
interface ExportedTable<Raw, Row> {
  table: string;
  time: string;
  key: string;
  /** The key's value as a literal, from a position's text. */
  keyLiteral: (key: string) => string;
  columns: string;
  /** A row as exported, and its key as text. */
  read: (raw: Raw) => { row: Row; time: number; key: string };
}

interface Slice {
  day: string;
  fromMs: number;
  toMs: number;
}

interface Bucket {
  start: number;
  n: number;
}

/**
 * Consecutive slices [cursor, hi) covering `buckets` (counts per `widthMs` from each start), each
 * holding at most `maxRows` rows where buckets allow; a bucket holding more is cut by `finer`
 * counts when there are any (else it is a slice alone, paged by key).
 */
async function* slicesOf(
  day: string,
  buckets: readonly Bucket[],
  widthMs: number,
  lo: number,
  hi: number,
  maxRows: number,
  finer?: (fromMs: number, toMs: number) => Promise<Bucket[]>,
): AsyncGenerator<Slice> {
  let cursor = lo;
  let total = 0;
  for (const { start, n } of buckets) {
    if (total > 0 && total + n > maxRows) {
      yield { day, fromMs: cursor, toMs: start };
      cursor = start;
      total = 0;
    }
    if (n > maxRows && finer) {
      const end = Math.min(start + widthMs, hi);
      yield* slicesOf(day, await finer(Math.max(start, cursor), end), 1, cursor, end, maxRows);
      cursor = end;
      continue;
    }
    total += n;
  }
  if (cursor < hi) yield { day, fromMs: cursor, toMs: hi };
}

async function* exportTable<Raw, Row>(telemetry: ClickHouseTelemetry, spec: ExportedTable<Raw, Row>, request: ExportRequest): ExportBatches<Row> {
  const table = `${telemetry.database}.${spec.table}`;
  const after = request.after === undefined ? undefined : splitPosition(request.after);
  const through = request.through === undefined ? undefined : splitPosition(request.through);
  const lo = Math.max(request.fromMs, after?.time ?? 0, 0);
  const hi = Math.min(request.toMs, through === undefined ? Infinity : through.time + 1, lastDayMs + dayMs);
  if (hi <= lo) return;
  const time = spec.time;
  const keyset: string[] = [];
  if (after) keyset.push(`(${time} > ${numberLiteral(after.time)} OR ${spec.key} > ${spec.keyLiteral(after.key)})`);
  if (through) keyset.push(`(${time} < ${numberLiteral(through.time)} OR ${spec.key} <= ${spec.keyLiteral(through.key)})`);
  const within = (fromMs: number, toMs: number) => `${time} >= ${numberLiteral(fromMs)} AND ${time} < ${numberLiteral(toMs)}`;
  const counts = async (day: string, width: number, fromMs: number, toMs: number) =>
    (
      await telemetry.rows<{ start: string; n: string }>(
        `SELECT intDiv(toUInt64(${time}), ${numberLiteral(width)}) * ${numberLiteral(width)} AS start, count() AS n FROM ${table}
          WHERE day = toDate(${stringLiteral(day)}) AND ${within(fromMs, toMs)} GROUP BY start ORDER BY start`,
      )
    ).map((row) => ({ start: Number(row.start), n: Number(row.n) }));

  const days = await telemetry.rows<{ day_text: string }>(
    `SELECT toString(day) AS day_text FROM ${table}
      WHERE day >= toDate(${stringLiteral(dayOf(lo))}) AND day <= toDate(${stringLiteral(dayOf(hi - 1))}) AND ${within(lo, hi)}
      GROUP BY day_text ORDER BY day_text`,
  );
  for (const { day_text: day } of days) {
    const dayStart = Date.parse(`${day}T00:00:00Z`);
    const dayLo = Math.max(lo, dayStart);
    const dayHi = Math.min(hi, dayStart + dayMs);
    const minutes = await counts(day, minuteMs, dayLo, dayHi);
    for await (const slice of slicesOf(day, minutes, minuteMs, dayLo, dayHi, request.batchRows, (fromMs, toMs) => counts(day, 1, fromMs, toMs))) {
      let page: string[] = [];
      for (;;) {
        const rows = await telemetry.rows<Raw>(
          `SELECT ${spec.columns} FROM ${table}
            WHERE ${[`day = toDate(${stringLiteral(slice.day)})`, within(slice.fromMs, slice.toMs), ...keyset, ...page].join(' AND ')}
            ORDER BY ${time}, ${spec.key} LIMIT ${numberLiteral(request.batchRows)}`,
        );
        if (rows.length === 0) break;
        const batch = rows.map((raw) => {
          const read = spec.read(raw);
          return { row: read.row, position: `${read.time}:${read.key}`, time: read.time, key: read.key };
        });
        yield batch.map(({ row, position }) => ({ row, position }));
        if (rows.length < request.batchRows) break;
        const last = batch[batch.length - 1]!;
        page = [`(${time} > ${numberLiteral(last.time)} OR (${time} = ${numberLiteral(last.time)} AND ${spec.key} > ${spec.keyLiteral(last.key)}))`];
      }
    }
  }
}

/** An exported occurrence as JSONEachRow gives it (64-bit integers as text). */
type RawOccurrence = Omit<ExportedOccurrence, 'received_at'> & { id: string; received_at: string };

/** Occurrences by (start, id): the ClickHouse store's occurrence order. */
export function exportClickHouseOccurrences(telemetry: ClickHouseTelemetry, request: ExportRequest): ExportBatches<ExportedOccurrence> {
  return exportTable<RawOccurrence, ExportedOccurrence>(
    telemetry,
    {
      table: 'occurrences',
      time: 'started_at',
      key: 'id',
      keyLiteral: stringLiteral,
      columns: exportedOccurrenceColumns.join(', '),
      read: ({ id, ...row }) => {
        const startedAt = sentDouble(row.started_at, 16);
        return { row: { ...row, started_at: startedAt, duration_ms: sentDouble(row.duration_ms), received_at: Number(row.received_at) }, time: startedAt, key: id };
      },
    },
    request,
  );
}

/** A record's columns: what the writer inserts but its day. */
const logColumns = logInsertColumns.filter((column) => column !== 'day').join(', ');

/** An exported log record as JSONEachRow gives it: 64-bit integers as text, no trace as ''. */
type RawLogRecord = Omit<ExportedLogRecord, 'time_ms' | 'observed_ms' | 'received_at' | 'trace_id'> & { uid: string; time_ms: string; observed_ms: string; received_at: string; trace_id: string };

/** Log records by (time, uid): a millisecond's records in their order of arrival. */
export function exportClickHouseLogRecords(telemetry: ClickHouseTelemetry, request: ExportRequest): ExportBatches<ExportedLogRecord> {
  return exportTable<RawLogRecord, ExportedLogRecord>(
    telemetry,
    {
      table: 'logs',
      time: 'time_ms',
      key: 'uid',
      keyLiteral: (key) => numberLiteral(Number(key)),
      columns: logColumns,
      read: ({ uid, ...row }) => {
        const timeMs = Number(row.time_ms);
        return {
          row: { ...row, time_ms: timeMs, observed_ms: Number(row.observed_ms), received_at: Number(row.received_at), trace_id: row.trace_id === '' ? null : row.trace_id },
          time: timeMs,
          key: uid,
        };
      },
    },
    request,
  );
}

/**
 * Status changes by (time, group): the store records a group's changes a millisecond apart at
 * least (clickhouse-error-groups.ts), so a key names one change.
 */
export async function* exportClickHouseStatusChanges(telemetry: ClickHouseTelemetry, request: Pick<ExportRequest, 'after' | 'batchRows'>): ExportBatches<ErrorGroupStatusChange> {
  let after = request.after === undefined ? undefined : splitPosition(request.after);
  for (;;) {
    const where = after ? `WHERE changed_at > ${numberLiteral(after.time)} OR (changed_at = ${numberLiteral(after.time)} AND group_id > ${stringLiteral(after.key)})` : '';
    const rows = await telemetry.rows<{ group_id: string; status: ErrorGroupStatusChange['status']; changed_at: string; changed_by: string }>(
      `SELECT group_id, status, changed_at, changed_by FROM ${telemetry.database}.error_group_statuses ${where}
        ORDER BY changed_at, group_id LIMIT ${numberLiteral(request.batchRows)}`,
    );
    if (rows.length === 0) return;
    yield rows.map((row) => ({
      row: { groupId: row.group_id, status: row.status, changedAt: Number(row.changed_at), changedBy: row.changed_by },
      position: `${row.changed_at}:${row.group_id}`,
    }));
    if (rows.length < request.batchRows) return;
    const last = rows[rows.length - 1]!;
    after = { time: Number(last.changed_at), key: last.group_id };
  }
}

import { CompiledQuery, sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { Database, Dialect } from '@playstack/server-kit';
import { attributeEquals } from '../query/attribute-filter.js';
import { multiRowInsertSql } from '../storage/multi-row-insert.js';
import { cellId } from '../storage/rollup-accumulator.js';
import { minuteMs } from '../time-units.js';
import { assignLogIds, firstIdAt, lastLogTimeMs, logIdEpochMs, slotMsOf, slotsPerMs } from './log-ids.js';
import type { ExportBatches, ExportRequest } from '../storage/telemetry-export.js';
import type { ExportedLogRecord, LogCount, LogPageRequest, LogSelection, LogStore, NewLogRecord, SqlLogWriter, StoredLogRecord, TenantLogCount, TenantLogCountRequest } from './log-store.js';
import { logTables, type LogTables } from './log-tables.js';
import { logColumn, logColumns, logStride, packedCount, type MinuteCount, type PackedLogRows } from './packed-log-rows.js';
import { fts5BodyQuery, fts5TraceQuery, postgresBodyMatches } from './log-text-search.js';

/** Rows per INSERT: 22 columns, well under both dialects' bind parameter limits. */
const rowsPerInsert = 1_000;
/** Text index rows per INSERT, as for `logs`: the full chunk's statement is prepared once. */
const ftsRowsPerInsert = rowsPerInsert;

const hourMs = 60 * minuteMs;
/** Counts are kept per minute and per hour: a long range reads hours, its ragged ends minutes. */
const countPeriodsMs = [minuteMs, hourMs] as const;
/** Severity thresholds with a partial index (see the migration); queries name them as literals. */
const indexedSeverities = [17, 13] as const;

interface CountKey {
  periodMs: number;
  bucket: number;
  key: ReadonlyArray<string | number>;
  count: number;
}

/**
 * Sums records per period, bucket and key in memory: one upsert per cell, not per record. The
 * batches come counted per minute (`PackedLogRows.minuteCounts`); a minute lies in one bucket of
 * each period.
 */
class CountAccumulator {
  readonly #cells = new Map<string, CountKey>();

  get cells(): CountKey[] {
    return [...this.#cells.values()];
  }

  add({ minuteMs: minute, key, count }: MinuteCount): void {
    for (const periodMs of countPeriodsMs) {
      const bucket = minute - (minute % periodMs);
      const id = cellId(bucket, [periodMs, ...key]);
      const cell = this.#cells.get(id);
      if (cell) cell.count += count;
      else this.#cells.set(id, { periodMs, bucket, key, count });
    }
  }
}

/** Calls `visit` with each record of the batches in order: its batch's values and where the record starts in them. */
function forEachRecord(batches: readonly PackedLogRows[], visit: (values: unknown[], at: number) => void): void {
  for (const { count, values } of batches) for (let row = 0, at = 0; row < count; row++, at += logStride) visit(values, at);
}

/**
 * The batches' records as the parameters of multi-row INSERTs of `perStatement` records
 * (`width` values each, which `add` appends), across batch boundaries: a transaction has one
 * shorter statement at most, whose text is built afresh (the full one's is kept).
 */
function* recordChunks(batches: readonly PackedLogRows[], perStatement: number, width: number, add: (values: unknown[], at: number, into: unknown[]) => void): Generator<unknown[]> {
  let chunk: unknown[] = [];
  for (const { count, values } of batches) {
    for (let row = 0, at = 0; row < count; row++, at += logStride) {
      add(values, at, chunk);
      if (chunk.length === perStatement * width) {
        yield chunk;
        chunk = [];
      }
    }
  }
  if (chunk.length > 0) yield chunk;
}

const idPattern = /^[1-9][0-9]{0,15}$/;

/** The log store over the service database (SQLite or PostgreSQL). */
export function sqlLogStore(database: Pick<Database, 'db' | 'dialect'>): LogStore & SqlLogWriter {
  return new SqlLogStore({ db: logTables(database.db), dialect: database.dialect });
}

/** Log storage on SQLite or PostgreSQL (through Kysely); the text index is each database's own. */
class SqlLogStore implements LogStore, SqlLogWriter {
  readonly #database: Pick<Database<LogTables>, 'db' | 'dialect'>;
  readonly #insertSql = new Map<string, string>();

  constructor(database: Pick<Database<LogTables>, 'db' | 'dialect'>) {
    this.#database = database;
  }

  get #dialect(): Dialect {
    return this.#database.dialect;
  }

  get #db(): Kysely<LogTables> {
    return this.#database.db;
  }

  /** Ids are safe integers (log-ids.ts). */
  isLogId(text: string): boolean {
    return idPattern.test(text) && Number.isSafeInteger(Number(text));
  }

  async writeBatch<DB extends LogTables>(ingestTransaction: Kysely<DB> | Transaction<DB>, batches: readonly PackedLogRows[], receivedAt: number): Promise<void> {
    const count = packedCount(batches);
    if (count === 0) return;
    const trx = logTables(ingestTransaction);
    const times: number[] = [];
    forEachRecord(batches, (values, at) => times.push(values[at + logColumn.time_ms] as number));
    const ids = await assignLogIds(times, (milliseconds) => this.#storedSlots(trx, milliseconds));
    let next = 0;
    forEachRecord(batches, (values, at) => {
      values[at + logColumn.id] = ids[next++];
      values[at + logColumn.received_at] ??= receivedAt;
    });
    // One request's records that fit one statement are its parameters as they stand.
    if (batches.length === 1 && count <= rowsPerInsert) {
      await trx.executeQuery(CompiledQuery.raw(this.#statement('logs', logColumns, count), batches[0]!.values));
    } else {
      for (const chunk of recordChunks(batches, rowsPerInsert, logStride, (values, at, into) => {
        for (let column = 0; column < logStride; column++) into.push(values[at + column]);
      })) {
        await trx.executeQuery(CompiledQuery.raw(this.#statement('logs', logColumns, chunk.length / logStride), chunk));
      }
    }
    if (this.#dialect === 'sqlite') await this.#indexText(trx, batches);
    await this.#addCounts(trx, batches);
  }

  /** A multi-row INSERT into `table`; the full chunks' text is kept (shorter ones recur too rarely). */
  #statement(table: 'logs' | 'logs_fts', columns: readonly string[], rowCount: number): string {
    const key = `${table}:${rowCount}`;
    let text = this.#insertSql.get(key);
    if (text === undefined) {
      text = multiRowInsertSql(this.#dialect, table, columns, rowCount);
      if (rowCount === rowsPerInsert) this.#insertSql.set(key, text);
    }
    return text;
  }

  /** The largest stored id in each millisecond's slots, one statement for them all. */
  async #storedSlots(trx: Kysely<LogTables>, milliseconds: readonly number[]): Promise<Map<number, number>> {
    const firsts = milliseconds.map(firstIdAt);
    const result =
      this.#dialect === 'postgres'
        ? await sql<{ first: number; last: number | null }>`
            select s.first, (select max(id) from logs where id >= s.first and id < s.first + ${slotsPerMs}) as last
            from unnest(${firsts}::bigint[]) as s(first)`.execute(trx)
        : await sql<{ first: number; last: number | null }>`
            select s.value as first, (select max(id) from logs where id >= s.value and id < s.value + ${slotsPerMs}) as last
            from json_each(${JSON.stringify(firsts)}) as s`.execute(trx);
    const found = new Map<number, number>();
    for (const row of result.rows) {
      if (row.last !== null) found.set(slotMsOf(Number(row.first)), Number(row.last));
    }
    return found;
  }

  /** SQLite: the FTS5 index of bodies and trace ids, rowid = the record's id. */
  async #indexText(trx: Kysely<LogTables>, batches: readonly PackedLogRows[]): Promise<void> {
    const textColumns = ['rowid', 'body', 'trace'];
    for (const chunk of recordChunks(batches, ftsRowsPerInsert, textColumns.length, (values, at, into) => {
      into.push(values[at + logColumn.id], values[at + logColumn.body], values[at + logColumn.trace_id]);
    })) {
      await trx.executeQuery(CompiledQuery.raw(this.#statement('logs_fts', textColumns, chunk.length / textColumns.length), chunk));
    }
  }

  async #addCounts(trx: Kysely<LogTables>, batches: readonly PackedLogRows[]): Promise<void> {
    const severities = new CountAccumulator();
    const tenants = new CountAccumulator();
    for (const { minuteCounts } of batches) {
      for (const cell of minuteCounts.severities) severities.add(cell);
      for (const cell of minuteCounts.tenants) tenants.add(cell);
    }
    await this.#upsertCounts(trx, 'log_counts', ['service', 'environment', 'severity_number'], severities);
    await this.#upsertCounts(trx, 'log_tenant_counts', ['tenant_id', 'service', 'environment'], tenants);
  }

  async #upsertCounts(trx: Kysely<LogTables>, table: 'log_counts' | 'log_tenant_counts', keyColumns: readonly string[], counts: CountAccumulator): Promise<void> {
    const { cells } = counts;
    const columns = ['period_ms', 'bucket', ...keyColumns, 'count'];
    const perStatement = Math.floor(30_000 / columns.length);
    for (let offset = 0; offset < cells.length; offset += perStatement) {
      const chunk = cells.slice(offset, offset + perStatement);
      const parameters = chunk.flatMap((cell) => [cell.periodMs, cell.bucket, ...cell.key, cell.count]);
      const insert = multiRowInsertSql(this.#dialect, table, columns, chunk.length);
      const conflict = ['period_ms', 'bucket', ...keyColumns].join(',');
      await trx.executeQuery(CompiledQuery.raw(`${insert} on conflict (${conflict}) do update set count = ${table}.count + excluded.count`, parameters));
    }
  }

  /**
   * The conditions of a selection on `logs` aliased `l`, except the id range and the text index
   * match (which the two query shapes place differently).
   */
  #rowConditions(selection: LogSelection, textIndexUsed: boolean): RawBuilder<unknown>[] {
    const conditions: RawBuilder<unknown>[] = [];
    const { filters } = selection;
    if (filters.service !== undefined) conditions.push(sql`l.service = ${filters.service}`);
    if (filters.environment !== undefined) conditions.push(sql`l.environment = ${filters.environment}`);
    if (selection.severityMin !== undefined) {
      conditions.push(sql`l.severity_number >= ${selection.severityMin}`);
      const indexed = indexedSeverities.find((threshold) => selection.severityMin! >= threshold);
      if (indexed !== undefined) conditions.push(sql`l.severity_number >= ${sql.lit(indexed)}`);
    }
    if (!textIndexUsed) {
      if (selection.traceId !== undefined) conditions.push(sql`l.trace_id = ${selection.traceId}`);
      if (selection.terms !== undefined) conditions.push(postgresBodyMatches(selection.terms));
    }
    for (const [key, value] of selection.attributes ?? []) conditions.push(sql`${attributeEquals(this.#dialect, key, value)}`);
    return conditions;
  }

  /** SQLite answers body words and trace ids from FTS5; PostgreSQL from its own indexes in the WHERE. */
  #fts5Query(selection: LogSelection): string | undefined {
    if (this.#dialect !== 'sqlite') return undefined;
    const parts: string[] = [];
    if (selection.terms !== undefined) parts.push(`(${fts5BodyQuery(selection.terms)})`);
    if (selection.traceId !== undefined) parts.push(`(${fts5TraceQuery(selection.traceId)})`);
    return parts.length > 0 ? parts.join(' AND ') : undefined;
  }

  /**
   * `select <what> from <the selection's records>`: with the text index, its matches drive the
   * query in id order (newest first without a sort: ids are time-ordered); without it, the
   * primary key or the service / severity indexes do.
   */
  #selectFrom(selection: LogSelection, what: RawBuilder<unknown>, beforeId?: number): { query: RawBuilder<unknown>; idColumn: RawBuilder<unknown> } {
    const fromId = firstIdAt(selection.range.fromMs);
    const toId = Math.min(firstIdAt(selection.range.toMs), beforeId ?? Number.MAX_SAFE_INTEGER);
    const match = this.#fts5Query(selection);
    const conditions = this.#rowConditions(selection, match !== undefined);
    if (match !== undefined) {
      const where = sql.join([sql`f.logs_fts match ${match}`, sql`f.rowid >= ${fromId}`, sql`f.rowid < ${toId}`, ...conditions], sql` and `);
      return { query: sql`select ${what} from logs_fts f join logs l on l.id = f.rowid where ${where}`, idColumn: sql`f.rowid` };
    }
    const where = sql.join([sql`l.id >= ${fromId}`, sql`l.id < ${toId}`, ...conditions], sql` and `);
    return { query: sql`select ${what} from logs l where ${where}`, idColumn: sql`l.id` };
  }

  async search(request: LogPageRequest): Promise<StoredLogRecord[]> {
    const { query, idColumn } = this.#selectFrom(request, sql`l.*`, request.beforeId === undefined ? undefined : Number(request.beforeId));
    const result = await sql<StoredLogRecord>`${query} order by ${idColumn} desc limit ${request.limit}`.execute(this.#db);
    return result.rows;
  }

  async trend(selection: LogSelection, bucketMs: number): Promise<LogCount[]> {
    const raw = selection.terms !== undefined || selection.traceId !== undefined || (selection.attributes?.length ?? 0) > 0;
    if (raw) {
      // Counted from the records themselves: the counts tables know no words, traces or attributes.
      const bucket = sql`l.time_ms - (l.time_ms % ${sql.lit(bucketMs)})`;
      const { query } = this.#selectFrom(selection, sql`${bucket} as bucket, l.severity_number as severity_number, count(*) as count`);
      const result = await sql<{ bucket: number; severity_number: number; count: number }>`${query} group by ${bucket}, l.severity_number`.execute(this.#db);
      return result.rows.map((row) => ({ bucketStartMs: Number(row.bucket), severityNumber: Number(row.severity_number), count: Number(row.count) }));
    }
    const conditions: RawBuilder<unknown>[] = [];
    if (selection.filters.service !== undefined) conditions.push(sql`service = ${selection.filters.service}`);
    if (selection.filters.environment !== undefined) conditions.push(sql`environment = ${selection.filters.environment}`);
    if (selection.severityMin !== undefined) conditions.push(sql`severity_number >= ${selection.severityMin}`);
    const rows = await this.#readCounts('log_counts', ['severity_number'], conditions, selection.range, bucketMs);
    return rows.map((row) => ({ bucketStartMs: row.bucketStartMs, severityNumber: Number(row.keys.severity_number), count: row.count }));
  }

  async tenantCounts(request: TenantLogCountRequest): Promise<TenantLogCount[]> {
    const conditions: RawBuilder<unknown>[] = [];
    if (request.tenantId !== undefined) conditions.push(sql`tenant_id = ${request.tenantId}`);
    if (request.filters.service !== undefined) conditions.push(sql`service = ${request.filters.service}`);
    if (request.filters.environment !== undefined) conditions.push(sql`environment = ${request.filters.environment}`);
    const rows = await this.#readCounts('log_tenant_counts', ['tenant_id', 'service', 'environment'], conditions, request.range, request.bucketMs);
    return rows.map((row) => ({
      tenantId: String(row.keys.tenant_id),
      service: String(row.keys.service),
      environment: String(row.keys.environment),
      bucketStartMs: row.bucketStartMs,
      count: row.count,
    }));
  }

  /**
   * Sums a counts table over the minutes touching the range (as every rollup view counts them),
   * grouped by `groupBy` and buckets of `bucketMs`: whole hours from the hourly rows when the
   * buckets are whole hours too, the rest from the minute rows.
   */
  async #readCounts(
    table: 'log_counts' | 'log_tenant_counts',
    groupBy: readonly string[],
    conditions: RawBuilder<unknown>[],
    range: { fromMs: number; toMs: number },
    bucketMs: number | undefined,
  ): Promise<Array<{ keys: Record<string, unknown>; bucketStartMs: number; count: number }>> {
    const firstMinute = range.fromMs - (range.fromMs % minuteMs);
    const endMinute = Math.ceil(range.toMs / minuteMs) * minuteMs;
    if (endMinute <= firstMinute) return [];
    const hoursUsable = bucketMs === undefined || bucketMs % hourMs === 0;
    const firstHour = Math.ceil(firstMinute / hourMs) * hourMs;
    const endHour = Math.floor(endMinute / hourMs) * hourMs;
    const spans: Array<{ periodMs: number; fromMs: number; toMs: number }> =
      hoursUsable && endHour > firstHour
        ? [
            { periodMs: minuteMs, fromMs: firstMinute, toMs: firstHour },
            { periodMs: hourMs, fromMs: firstHour, toMs: endHour },
            { periodMs: minuteMs, fromMs: endHour, toMs: endMinute },
          ]
        : [{ periodMs: minuteMs, fromMs: firstMinute, toMs: endMinute }];
    const bucket = bucketMs === undefined ? sql`0` : sql`bucket - (bucket % ${sql.lit(bucketMs)})`;
    const merged = new Map<string, { keys: Record<string, unknown>; bucketStartMs: number; count: number }>();
    for (const span of spans.filter((candidate) => candidate.toMs > candidate.fromMs)) {
      const where = sql.join([sql`period_ms = ${span.periodMs}`, sql`bucket >= ${span.fromMs}`, sql`bucket < ${span.toMs}`, ...conditions], sql` and `);
      const columns = groupBy.map((column) => sql.ref(column));
      const result = await sql<Record<string, unknown>>`
        select ${sql.join([...columns, sql`${bucket} as bucket_start`, sql`sum(count) as count`])}
        from ${sql.table(table)} where ${where}
        group by ${sql.join(bucketMs === undefined ? columns : [...columns, bucket])}`.execute(this.#db);
      for (const row of result.rows) {
        const keys = Object.fromEntries(groupBy.map((column) => [column, row[column]]));
        const bucketStartMs = Number(row.bucket_start);
        const id = JSON.stringify([bucketStartMs, ...groupBy.map((column) => row[column])]);
        const existing = merged.get(id);
        if (existing) existing.count += Number(row.count);
        else merged.set(id, { keys, bucketStartMs, count: Number(row.count) });
      }
    }
    return [...merged.values()];
  }

  async traceLogs(traceId: string, limit: number): Promise<StoredLogRecord[]> {
    const { query, idColumn } = this.#selectFrom({ range: { fromMs: logIdEpochMs, toMs: lastLogTimeMs }, filters: {}, traceId }, sql`l.*`);
    const result = await sql<StoredLogRecord>`${query} order by ${idColumn} limit ${limit}`.execute(this.#db);
    return result.rows;
  }

  /**
   * By id (time order, a millisecond's records by arrival), from the range's first id: a walk of
   * the primary key. The last batch walks on to the table's end, for records of the range that
   * overflowed into later milliseconds' slots (log-ids.ts).
   */
  async *exportRecords(request: ExportRequest): ExportBatches<ExportedLogRecord> {
    let afterId = request.after === undefined ? undefined : Number(request.after);
    const throughId = request.through === undefined ? undefined : Number(request.through);
    for (;;) {
      let query = this.#db.selectFrom('logs').selectAll().where('id', '>=', firstIdAt(request.fromMs)).where('time_ms', '>=', request.fromMs).where('time_ms', '<', request.toMs);
      if (afterId !== undefined) query = query.where('id', '>', afterId);
      if (throughId !== undefined) query = query.where('id', '<=', throughId);
      const rows = await query.orderBy('id').limit(request.batchRows).execute();
      if (rows.length === 0) return;
      yield rows.map(({ id, ...record }) => ({ row: record, position: String(id) }));
      if (rows.length < request.batchRows) return;
      afterId = Number(rows[rows.length - 1]!.id);
    }
  }

  async prune(cutoffMs: number, batchRows: number, stopped: () => boolean): Promise<number> {
    const cutoffId = firstIdAt(cutoffMs);
    let pruned = 0;
    while (!stopped()) {
      const deleted = await this.#database.db.transaction().execute(async (trx) => {
        const oldest = await sql<{ id: number }>`select id from logs where id < ${cutoffId} order by id limit ${batchRows}`.execute(trx);
        if (oldest.rows.length === 0) return 0;
        const lastId = Number(oldest.rows[oldest.rows.length - 1]!.id);
        if (this.#dialect === 'sqlite') {
          // The text index keeps no sizes (columnsize=0), so an entry is removed by FTS5's 'delete'
          // command with the values it was indexed from: the record's body and trace id.
          await sql`insert into logs_fts (logs_fts, rowid, body, trace) select 'delete', id, body, trace_id from logs where id <= ${lastId}`.execute(trx);
        }
        // The oldest ids are exactly those up to the last one: a range, not a list.
        await sql`delete from logs where id <= ${lastId}`.execute(trx);
        return oldest.rows.length;
      });
      pruned += deleted;
      if (deleted < batchRows) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (!stopped()) {
      for (const table of ['log_counts', 'log_tenant_counts'] as const) {
        for (const periodMs of countPeriodsMs) {
          await sql`delete from ${sql.table(table)} where period_ms = ${periodMs} and bucket <= ${cutoffMs - periodMs}`.execute(this.#db);
        }
      }
    }
    return pruned;
  }
}

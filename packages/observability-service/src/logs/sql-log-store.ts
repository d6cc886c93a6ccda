import { CompiledQuery, sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { Database, Dialect } from '@playstack/server-kit';
import { attributeEquals } from '../query/attribute-filter.js';
import { multiRowInsertSql } from '../storage/multi-row-insert.js';
import { cellId } from '../storage/rollup-accumulator.js';
import { minuteMs } from '../time-units.js';
import { assignLogIds, bucketFirstId, bucketOfId, idRangeOf, idsBefore, lastLogTimeMs, logIdEpochMs } from './log-ids.js';
import type { ExportBatches, ExportRequest } from '../storage/telemetry-export.js';
import type { ExportedLogRecord, LogCount, LogPageRequest, LogSelection, LogStore, NewLogRecord, SqlLogWriter, StoredLogRecord, TenantLogCount, TenantLogCountRequest } from './log-store.js';
import { logTables, type LogTables } from './log-tables.js';
import { logColumn, logColumns, logStride, packedCount, type MinuteCount, type PackedLogRows } from './packed-log-rows.js';
import { fts5BodyQuery, postgresBodyMatches } from './log-text-search.js';
import { pruneTraceDirectory, recordTraces, traceCandidateIds } from './log-trace-directory.js';

/**
 * Rows per INSERT, largest first: a batch is stored in statements of these sizes (a batch of 512
 * records in 5 + 1 + 2), so a handful of texts are ever prepared whatever the senders' batch
 * sizes. 1,000 rows of 22 columns stay well under both dialects' bind parameter limits.
 */
const statementSizes = [1_000, 100, 10, 1] as const;

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

const idPattern = /^[1-9][0-9]{0,15}$/;

/**
 * SQLite: `logs l` restricted to these ids (a trace's, from the trace directory), the ids the
 * outer loop so each is one primary-key probe: CROSS JOIN keeps that order, where the planner,
 * without statistics, could walk the `(service, id)` index over the whole range instead.
 */
export function traceRecordsSource(ids: readonly number[]): RawBuilder<unknown> {
  return sql`json_each(${JSON.stringify(ids)}) j cross join logs l on l.id = j.value`;
}

/** The log store over the service database (SQLite or PostgreSQL). */
export function sqlLogStore(database: Pick<Database, 'db' | 'dialect'>): LogStore & SqlLogWriter {
  return new SqlLogStore({ db: logTables(database.db), dialect: database.dialect });
}

/** Log storage on SQLite or PostgreSQL (through Kysely); the text index is each database's own. */
class SqlLogStore implements LogStore, SqlLogWriter {
  readonly #database: Pick<Database<LogTables>, 'db' | 'dialect'>;
  readonly #insertSql = new Map<number, string>();

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
    const times = new Array<number>(count);
    let next = 0;
    for (const { count: records, values } of batches) for (let at = logColumn.time_ms, row = 0; row < records; row++, at += logStride) times[next++] = Math.floor(values[at] as number);
    const ids = await assignLogIds(times, (buckets, slots) => this.#storedSlots(trx, buckets, slots));
    next = 0;
    for (const { count: records, values } of batches) {
      for (let at = 0, row = 0; row < records; row++, at += logStride) {
        values[at + logColumn.id] = ids[next++];
        values[at + logColumn.received_at] ??= receivedAt;
      }
    }
    // SQLite: the rows this transaction adds are those above the table's largest rowid now (rowids are assigned as max + 1).
    const rowidBefore = this.#dialect === 'sqlite' ? Number((await sql<{ last: number | null }>`select max(rowid) as last from logs`.execute(trx)).rows[0]!.last ?? 0) : 0;
    // Each batch's records go in statements of the standard sizes, a batch of exactly one of
    // them as its values stand, the others as slices of them (a copy of adjacent values).
    for (const { count: records, values } of batches) {
      let row = 0;
      for (const size of statementSizes) {
        for (; records - row >= size; row += size) {
          const parameters = row === 0 && size === records ? values : values.slice(row * logStride, (row + size) * logStride);
          await trx.executeQuery(CompiledQuery.raw(this.#insertStatement(size), parameters));
        }
      }
    }
    if (this.#dialect === 'sqlite') {
      await this.#indexText(trx, rowidBefore);
      await recordTraces(trx, batches);
    }
    await this.#addCounts(trx, batches);
  }

  /**
   * A multi-row INSERT into `logs` of one of the `statementSizes`; its text is built once. On
   * SQLite `insert or fail`: no statement savepoint (see #indexText), and a failure fails the whole
   * transaction anyway.
   */
  #insertStatement(rowCount: (typeof statementSizes)[number]): string {
    let text = this.#insertSql.get(rowCount);
    if (text === undefined) {
      text = multiRowInsertSql(this.#dialect, 'logs', logColumns, rowCount, true);
      this.#insertSql.set(rowCount, text);
    }
    return text;
  }

  /** The largest stored id in each bucket's slots, one statement for them all. */
  async #storedSlots(trx: Kysely<LogTables>, buckets: readonly number[], slots: number): Promise<Map<number, number>> {
    const firsts = buckets.map(bucketFirstId);
    const result =
      this.#dialect === 'postgres'
        ? await sql<{ first: number; last: number | null }>`
            select s.first, (select max(id) from logs where id >= s.first and id < s.first + ${slots}) as last
            from unnest(${firsts}::bigint[]) as s(first)`.execute(trx)
        : await sql<{ first: number; last: number | null }>`
            select s.value as first, (select max(id) from logs where id >= s.value and id < s.value + ${slots}) as last
            from json_each(${JSON.stringify(firsts)}) as s`.execute(trx);
    const found = new Map<number, number>();
    for (const row of result.rows) {
      if (row.last !== null) found.set(bucketOfId(Number(row.first)), Number(row.last));
    }
    return found;
  }

  /**
   * SQLite: the FTS5 index of the bodies of the rows this transaction added (rowid above
   * `rowidBefore`), rowid = the record's id (trace ids: log-trace-directory.ts), in one statement
   * that reads them back in id order. FTS5 writes its pending terms out as a segment whenever a
   * rowid is lower than the one before (which records timed out of order would do at nearly every
   * record) and at every savepoint, which SQLite opens for a statement that may have to undo
   * itself: this way a transaction writes one segment, and the bodies are not bound twice.
   * NOT INDEXED: the rowid range, then a sort of those rows (the planner would rather walk the
   * whole id index in order, which grows with the table).
   */
  async #indexText(trx: Kysely<LogTables>, rowidBefore: number): Promise<void> {
    await sql`insert or fail into logs_fts (rowid, body) select id, body from logs not indexed where rowid > ${rowidBefore} order by id`.execute(trx);
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

  /** The conditions of a selection on `logs` aliased `l` other than its id range, words and trace. */
  #rowConditions(selection: LogSelection): RawBuilder<unknown>[] {
    const conditions: RawBuilder<unknown>[] = [];
    const { filters } = selection;
    if (filters.service !== undefined) conditions.push(sql`l.service = ${filters.service}`);
    if (filters.environment !== undefined) conditions.push(sql`l.environment = ${filters.environment}`);
    if (selection.severityMin !== undefined) {
      conditions.push(sql`l.severity_number >= ${selection.severityMin}`);
      const indexed = indexedSeverities.find((threshold) => selection.severityMin! >= threshold);
      if (indexed !== undefined) conditions.push(sql`l.severity_number >= ${sql.lit(indexed)}`);
    }
    for (const [key, value] of selection.attributes ?? []) conditions.push(sql`${attributeEquals(this.#dialect, key, value)}`);
    return conditions;
  }

  /**
   * `select <what> from <the selection's records>`. PostgreSQL: its indexes on the body's words
   * and `trace_id` in the WHERE. SQLite: with a trace, the trace directory's ids for it (each
   * probed in the primary key, its words checked in the text index by rowid); with words alone,
   * the text index's matches drive the query in id order (newest first without a sort: ids are
   * time-ordered); otherwise the primary key or the service / severity indexes do.
   */
  async #selectFrom(selection: LogSelection, what: RawBuilder<unknown>, beforeId?: number): Promise<{ query: RawBuilder<unknown>; idColumn: RawBuilder<unknown> }> {
    const { fromMs, toMs } = selection.range;
    const { first: fromId, end } = idRangeOf(fromMs, toMs);
    const toId = Math.min(end, beforeId ?? Number.MAX_SAFE_INTEGER);
    const conditions = [sql`l.id >= ${fromId}`, sql`l.id < ${toId}`, sql`l.time_ms >= ${fromMs}`, sql`l.time_ms < ${toMs}`, ...this.#rowConditions(selection)];
    const { terms, traceId } = selection;
    if (this.#dialect === 'postgres') {
      if (traceId !== undefined) conditions.push(sql`l.trace_id = ${traceId}`);
      if (terms !== undefined) conditions.push(postgresBodyMatches(terms));
    } else if (traceId !== undefined) {
      const ids = await traceCandidateIds(this.#db, traceId, fromId, toId);
      conditions.push(sql`l.trace_id = ${traceId}`);
      if (terms !== undefined) conditions.push(sql`exists (select 1 from logs_fts f where f.logs_fts match ${fts5BodyQuery(terms)} and f.rowid = l.id)`);
      return { query: sql`select ${what} from ${traceRecordsSource(ids)} where ${sql.join(conditions, sql` and `)}`, idColumn: sql`l.id` };
    } else if (terms !== undefined) {
      const where = sql.join([sql`f.logs_fts match ${fts5BodyQuery(terms)}`, sql`f.rowid >= ${fromId}`, sql`f.rowid < ${toId}`, ...conditions], sql` and `);
      return { query: sql`select ${what} from logs_fts f join logs l on l.id = f.rowid where ${where}`, idColumn: sql`f.rowid` };
    }
    return { query: sql`select ${what} from logs l where ${sql.join(conditions, sql` and `)}`, idColumn: sql`l.id` };
  }

  async search(request: LogPageRequest): Promise<StoredLogRecord[]> {
    const { query, idColumn } = await this.#selectFrom(request, sql`l.*`, request.beforeId === undefined ? undefined : Number(request.beforeId));
    const result = await sql<StoredLogRecord>`${query} order by ${idColumn} desc limit ${request.limit}`.execute(this.#db);
    return result.rows;
  }

  async trend(selection: LogSelection, bucketMs: number): Promise<LogCount[]> {
    const raw = selection.terms !== undefined || selection.traceId !== undefined || (selection.attributes?.length ?? 0) > 0;
    if (raw) {
      // Counted from the records themselves: the counts tables know no words, traces or attributes.
      const bucket = sql`l.time_ms - (l.time_ms % ${sql.lit(bucketMs)})`;
      const { query } = await this.#selectFrom(selection, sql`${bucket} as bucket, l.severity_number as severity_number, count(*) as count`);
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
    const { query } = await this.#selectFrom({ range: { fromMs: logIdEpochMs, toMs: lastLogTimeMs }, filters: {}, traceId }, sql`l.*`);
    // By time (ids order by time only between buckets: log-ids.ts).
    const result = await sql<StoredLogRecord>`${query} order by l.time_ms, l.time_ns, l.id limit ${limit}`.execute(this.#db);
    return result.rows;
  }

  /**
   * By id (time order between id buckets, arrival within one), from the range's first id: a walk
   * of the primary key. The last batch walks on to the table's end, for records of the range that
   * overflowed into later buckets' slots (log-ids.ts).
   */
  async *exportRecords(request: ExportRequest): ExportBatches<ExportedLogRecord> {
    let afterId = request.after === undefined ? undefined : Number(request.after);
    const throughId = request.through === undefined ? undefined : Number(request.through);
    for (;;) {
      let query = this.#db.selectFrom('logs').selectAll().where('id', '>=', idRangeOf(request.fromMs, request.toMs).first).where('time_ms', '>=', request.fromMs).where('time_ms', '<', request.toMs);
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
    const cutoffId = idsBefore(cutoffMs);
    let pruned = 0;
    while (!stopped()) {
      const deleted = await this.#database.db.transaction().execute(async (trx) => {
        const oldest = await sql<{ id: number }>`select id from logs where id < ${cutoffId} order by id limit ${batchRows}`.execute(trx);
        if (oldest.rows.length === 0) return 0;
        const lastId = Number(oldest.rows[oldest.rows.length - 1]!.id);
        if (this.#dialect === 'sqlite') {
          // The text index keeps no sizes (columnsize=0), so an entry is removed by FTS5's 'delete'
          // command with the value it was indexed from: the record's body.
          await sql`insert into logs_fts (logs_fts, rowid, body) select 'delete', id, body from logs where id <= ${lastId}`.execute(trx);
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
      if (this.#dialect === 'sqlite') await pruneTraceDirectory(this.#db, cutoffId);
      for (const table of ['log_counts', 'log_tenant_counts'] as const) {
        for (const periodMs of countPeriodsMs) {
          await sql`delete from ${sql.table(table)} where period_ms = ${periodMs} and bucket <= ${cutoffMs - periodMs}`.execute(this.#db);
        }
      }
    }
    return pruned;
  }
}

import type { Clock, Database } from '@playstack/server-kit';
import { exportErrorGroupStatusChanges, setErrorGroupStatus } from '../errors/error-group-status.js';
import { errorGroupDetail, errorGroupsView } from '../errors/error-groups-view.js';
import { noLogRows, packLogRows, type LogStore, type NewLogRecord, type SqlLogWriter } from '../logs/index.js';
import { databaseView } from '../query/database-view.js';
import { dependenciesView } from '../query/dependencies-view.js';
import { occurrenceById, occurrenceDurationsView, occurrencesView } from '../query/occurrences-view.js';
import { operationsView } from '../query/operations-view.js';
import type { ReadQuery, TelemetryRead } from '../query/read-query.js';
import { dirtyMinutesNow } from '../query/tier-watermark.js';
import { sqlRollupReader, type DirtyMinutes } from '../query/rollup-aggregate.js';
import { servicesView, sqlLastSeen } from '../query/services-view.js';
import { summaryView } from '../query/summary-view.js';
import { compactTiers } from '../query/tier-compactor.js';
import { lookupId, traceView } from '../query/trace-view.js';
import { trendView } from '../query/trend-view.js';
import { OccurrenceWriter } from './occurrence-writer.js';
import { SqliteWriterThread } from './sqlite-writer-thread.js';
import type { SqliteWriterSettings } from './sqlite-writer-protocol.js';
import type { NewOccurrence } from '../storage/storage-tables.js';
import { exportSqlOccurrences } from '../storage/occurrence-export.js';
import { usageExportBatches, usageTrendView, usageView } from '../usage/usage-views.js';
import { sqlHealthFigures } from './sql-health-figures.js';
import { pruneSqlTelemetry } from './sql-prune.js';
import type { CommitReport, TelemetryStore } from './telemetry-store.js';
import type { TelemetryDatabase } from '../storage/storage-tables.js';
import { telemetryDatabase } from '../storage/telemetry-database.js';
import { errorGroupTables, type ErrorGroupDatabase } from '../errors/error-group-tables.js';
import type { Kysely } from 'kysely';
import type { SqlTelemetryDatabase } from './sql-telemetry-database.js';

export interface SqlTelemetryStoreOptions {
  database: Database<SqlTelemetryDatabase>;
  clock: Clock;
  logs: LogStore & SqlLogWriter;
  /** Requests waiting together are committed together, up to this many rows per transaction. */
  maxRowsPerTransaction: number;
  /**
   * SQLite: the file and settings of the service database, to write it on a thread of its own
   * (sqlite-writer-thread.ts); unset: on this thread's connection.
   */
  writerThread?: Omit<SqliteWriterSettings, 'maxRowsPerTransaction' | 'countsIngestion'> | undefined;
  /** False: writes are not counted for the health view (the copy command's). Default true. */
  countsIngestion?: boolean;
}

/**
 * Telemetry in the service database (SQLite or PostgreSQL, through Kysely): occurrences with
 * per-minute rollups written in the same transaction, tiers folded in by `maintain`, log records
 * through the SQL log store.
 */
export class SqlTelemetryStore implements TelemetryStore {
  readonly logs: LogStore;
  readonly #database: Database<SqlTelemetryDatabase>;
  /** The storage layer's tables, for the read views, the tiers and the health figures. */
  readonly #telemetry: Database<TelemetryDatabase>;
  readonly #errorGroups: Kysely<ErrorGroupDatabase>;
  readonly #writer: OccurrenceWriter | SqliteWriterThread;
  readonly #listeners: Array<(commit: CommitReport) => void> = [];

  constructor(options: SqlTelemetryStoreOptions) {
    this.#database = options.database;
    this.#telemetry = telemetryDatabase(options.database);
    this.#errorGroups = errorGroupTables(options.database.db);
    this.logs = options.logs;
    const onCommit = (commit: CommitReport) => {
      for (const listener of this.#listeners) listener(commit);
    };
    const { database, clock, maxRowsPerTransaction, writerThread, countsIngestion } = options;
    this.#writer = writerThread
      ? new SqliteWriterThread({ settings: { ...writerThread, maxRowsPerTransaction, countsIngestion }, clock, onCommit })
      : new OccurrenceWriter({ database, clock, maxRowsPerTransaction, logs: options.logs, countsIngestion, onCommit });
  }

  write(rows: readonly NewOccurrence[], refused = 0, logs: readonly NewLogRecord[] = []): Promise<void> {
    return this.#writer.write(rows, refused, logs.length === 0 ? noLogRows : packLogRows(logs));
  }

  idle(): Promise<void> {
    return this.#writer.idle();
  }

  /** Ends the writer thread, if there is one, once what it holds is committed. */
  async close(): Promise<void> {
    if (this.#writer instanceof SqliteWriterThread) await this.#writer.close();
  }

  onCommit(listener: (commit: CommitReport) => void): void {
    this.#listeners.push(listener);
  }

  /** A read over the tables, the tiers' dirty minutes looked up once (on first use). */
  #read(read: TelemetryRead): ReadQuery {
    const { db, dialect } = this.#telemetry;
    let dirty: ReturnType<DirtyMinutes> | undefined;
    const dirtyMinutes: DirtyMinutes = () => (dirty ??= dirtyMinutesNow(db));
    return { db, dialect, range: read.range, filters: read.filters, dirtyMinutes, rollups: sqlRollupReader({ db, dialect, dirtyMinutes }) };
  }

  services: TelemetryStore['services'] = (read, thresholds) => servicesView({ ...this.#read(read), lastSeen: sqlLastSeen(this.#telemetry.db) }, thresholds);
  summary: TelemetryStore['summary'] = (read, thresholds) => summaryView(this.#read(read), thresholds);
  trend: TelemetryStore['trend'] = (read, thresholds, interval) => trendView(this.#read(read), thresholds, interval);
  operations: TelemetryStore['operations'] = (read, thresholds, options) => operationsView(this.#read(read), thresholds, options);
  occurrences: TelemetryStore['occurrences'] = (read, options) => occurrencesView(this.#read(read), options);
  occurrenceDurations: TelemetryStore['occurrenceDurations'] = (read, options) => occurrenceDurationsView(this.#read(read), options);
  occurrence: TelemetryStore['occurrence'] = (id) => occurrenceById(this.#telemetry, id);
  lookup: TelemetryStore['lookup'] = (id) => lookupId(this.#telemetry, id);
  trace: TelemetryStore['trace'] = (traceId) => traceView(this.#telemetry, traceId);
  database: TelemetryStore['database'] = (read, limit) => databaseView(this.#read(read), limit);
  dependencies: TelemetryStore['dependencies'] = (read) => dependenciesView(this.#read(read));

  usage: TelemetryStore['usage'] = (read, tenantId) => usageView(this.#read(read), this.logs, tenantId);
  usageTrend: TelemetryStore['usageTrend'] = (read, tenantId, interval) => usageTrendView(this.#read(read), this.logs, tenantId, interval);
  usageExport: TelemetryStore['usageExport'] = (read, tenantId, interval) => usageExportBatches(
    this.#read(read),
    // Not the request's dirty minutes: each window looks them up afresh.
    sqlRollupReader(this.#telemetry),
    this.logs,
    tenantId,
    interval,
  );

  errorGroups: TelemetryStore['errorGroups'] = (nowMs, query) => errorGroupsView(this.#errorGroups, nowMs, query);
  errorGroup: TelemetryStore['errorGroup'] = (nowMs, groupId, query) => errorGroupDetail(this.#errorGroups, nowMs, groupId, query);
  setErrorGroupStatus: TelemetryStore['setErrorGroupStatus'] = (groupId, status, userId, nowMs) => setErrorGroupStatus(this.#errorGroups, groupId, status, userId, nowMs);

  exportErrorGroupStatusChanges: TelemetryStore['exportErrorGroupStatusChanges'] = (request) => exportErrorGroupStatusChanges(this.#errorGroups, request);
  exportOccurrences: TelemetryStore['exportOccurrences'] = (request) => exportSqlOccurrences(this.#telemetry.db, request);

  health: TelemetryStore['health'] = (nowMs) => sqlHealthFigures(this.#telemetry, nowMs);
  prune: TelemetryStore['prune'] = (cutoffMs, batchRows, stopped) => pruneSqlTelemetry(this.#database, this.logs, cutoffMs, batchRows, stopped);
  // On this thread even with the writer thread: folding tiers is mostly reads, and the writer
  // thread is what bounds ingestion (measured: bench/ingest's spans a little faster this way).
  maintain: TelemetryStore['maintain'] = () => compactTiers(this.#telemetry);
}

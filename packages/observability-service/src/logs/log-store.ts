import type { Kysely, Selectable, Transaction } from 'kysely';
import type { QueryFilters, QueryRange } from '../query/query-range.js';
import type { ExportBatches, ExportRequest } from '../storage/telemetry-export.js';
import type { LogTables, LogsTable, NewLogRecord } from './log-tables.js';
import type { PackedLogRows } from './packed-log-rows.js';

export type { NewLogRecord } from './log-tables.js';
/** A stored record as the copy command reads it (storage/telemetry-export.ts): as written, and when it was received. */
export type ExportedLogRecord = NewLogRecord & { received_at: number };
/** A stored record: the SQL store's row; ids are the store's own (numbers in SQL, decimal strings in ClickHouse). */
export type StoredLogRecord = Omit<Selectable<LogsTable>, 'id'> & { id: number | string };

/** Which records a search or a trend covers. */
export interface LogSelection {
  range: QueryRange;
  filters: QueryFilters;
  /** Records with at least this severity number (which excludes unspecified ones). */
  severityMin?: number | undefined;
  traceId?: string | undefined;
  /** Words that must all occur in the body (log-text-search.ts). */
  terms?: readonly string[] | undefined;
  /** `attr.<key>=<value>` filters, all of which must match the record's or its resource's attributes. */
  attributes?: ReadonlyArray<readonly [string, string]> | undefined;
}

export interface LogPageRequest extends LogSelection {
  /** Only records older than this id (the previous page's last, one `isLogId` accepts): keyset paging, newest first. */
  beforeId?: string | undefined;
  limit: number;
}

/** Records of one time bucket and severity number. */
export interface LogCount {
  bucketStartMs: number;
  severityNumber: number;
  count: number;
}

/** Records per tenant (and the grouping asked for) in a range. */
export interface TenantLogCount {
  tenantId: string;
  service: string;
  environment: string;
  /** Start of the bucket, when buckets were asked for (0 otherwise). */
  bucketStartMs: number;
  count: number;
}

export interface TenantLogCountRequest {
  range: QueryRange;
  filters: QueryFilters;
  tenantId?: string | undefined;
  bucketMs?: number | undefined;
}

/** The SQL log store's write: inside the ingest transaction, beside the occurrences. */
export interface SqlLogWriter {
  /**
   * Stores records inside the ingest transaction `trx` (with their text index and counts), filling
   * in each batch's ids and missing receipt times.
   */
  writeBatch<DB extends LogTables>(trx: Kysely<DB> | Transaction<DB>, batches: readonly PackedLogRows[], receivedAt: number): Promise<void>;
}

/**
 * Where log records live: the one interface the rest of the service uses, so the SQL store
 * (sql-log-store.ts) and the ClickHouse one (telemetry/clickhouse/clickhouse-log-store.ts) take
 * each other's place. Writes go through the telemetry store (the SQL store's `SqlLogWriter` in the
 * ingest transaction, ClickHouse's group-committed inserts); the logs views, the trace page, usage
 * and retention read and prune through this.
 */
export interface LogStore {
  /** Whether `text` is an id of this store's form (a cursor names one): decimal digits the store can hand out. */
  isLogId(text: string): boolean;
  /** A page of matching records, newest first. */
  search(request: LogPageRequest): Promise<StoredLogRecord[]>;
  /** Matching records counted per time bucket and severity number (buckets aligned to the epoch). */
  trend(selection: LogSelection, bucketMs: number): Promise<LogCount[]>;
  /** A trace's records, earliest first, at most `limit`. */
  traceLogs(traceId: string, limit: number): Promise<StoredLogRecord[]>;
  /** Records per tenant, for usage. */
  tenantCounts(request: TenantLogCountRequest): Promise<TenantLogCount[]>;
  /** Deletes records and counts older than `cutoffMs`, `batchRows` records per statement, until done or `stopped()`. */
  prune(cutoffMs: number, batchRows: number, stopped: () => boolean): Promise<number>;
  /** The stored records of a time range in the store's order (time, then arrival; SQL: at the grain of its id buckets), in bounded batches: what the copy command reads. */
  exportRecords(request: ExportRequest): ExportBatches<ExportedLogRecord>;
}

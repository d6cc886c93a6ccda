import { tableView } from '@playstack/server-kit/core';

/**
 * The logs storage contract: tables written by ingestion and read by the logs views, through the
 * log store (log-store.ts) only. Times are epoch milliseconds.
 */

/** One log record, as received. */
export interface LogsTable {
  /** Time-ordered (see log-ids.ts): ordering by id is ordering by time; the public id as a string. */
  id: number;
  /** `time_unix_nano` in whole milliseconds (the observed time when the record has no time). */
  time_ms: number;
  /** The nanoseconds of the time beyond `time_ms` (0-999,999). */
  time_ns: number;
  /** When the sender (or, without one, the service) observed the record. */
  observed_ms: number;
  /** OpenTelemetry severity number: 0 unspecified, 1-4 trace, 5-8 debug, 9-12 info, 13-16 warn, 17-20 error, 21-24 fatal. */
  severity_number: number;
  severity_text: string | null;
  /** The body: the string itself, or JSON text of a structured body (`body_json` = 1); null without one. */
  body: string | null;
  body_json: number;
  event_name: string | null;
  /** From the resource, as for occurrences. */
  service: string;
  environment: string;
  service_version: string | null;
  instance: string | null;
  /** The instrumentation scope (the logger's name and version). */
  scope_name: string | null;
  scope_version: string | null;
  /** 32 and 16 lowercase hex characters, when the record was emitted inside a span. */
  trace_id: string | null;
  span_id: string | null;
  /** W3C trace flags (OTLP `flags`, low 8 bits); 0 when unknown. */
  flags: number;
  tenant_id: string | null;
  /** JSON object of string -> string | number | boolean, or null. */
  attributes: string | null;
  /** JSON object of the resource's attributes other than service, environment, version and instance. */
  resource_attributes: string | null;
  /** When the service committed it. */
  received_at: number;
}

/**
 * A record to store: every column but the id (assigned by the store), and the receipt time only
 * when it was earlier than the write (the copy command keeps the source store's; ingestion leaves
 * it out: the commit's time).
 */
export type NewLogRecord = Omit<LogsTable, 'id' | 'received_at'> & { received_at?: number };

/** Log records per period, bucket, service, environment and severity number. */
export interface LogCountsTable {
  /** 60,000 (minutes) or 3,600,000 (hours): both are written, so long ranges read hours. */
  period_ms: number;
  /** Epoch ms of the period's start. */
  bucket: number;
  service: string;
  environment: string;
  severity_number: number;
  count: number;
}

/** Log records per period, bucket, tenant, service and environment (records with a tenant). */
export interface LogTenantCountsTable {
  period_ms: number;
  bucket: number;
  tenant_id: string;
  service: string;
  environment: string;
  count: number;
}

/** SQLite's trace directory (log-trace-directory.ts): one row per ingest transaction's traced records. */
export interface LogTraceRunsTable {
  id: number;
  /** The smallest and largest record id among the run's entries. */
  first_id: number;
  last_id: number;
  records: number;
  /** `runEntryBytes` per record: part, print, id. */
  entries: Buffer;
}

/** A block of folded runs: its records' id range and count. */
export interface LogTraceBlocksTable {
  block: number;
  first_id: number;
  last_id: number;
  records: number;
}

/** A block's entries of one part, keyed `part * 2^32 + block`. */
export interface LogTracePartsTable {
  key: number;
  first_id: number;
  last_id: number;
  /** `partEntryBytes` per record: print, id. */
  entries: Buffer;
}

export interface LogTables {
  logs: LogsTable;
  log_counts: LogCountsTable;
  log_tenant_counts: LogTenantCountsTable;
  /** SQLite only. */
  log_trace_runs: LogTraceRunsTable;
  log_trace_blocks: LogTraceBlocksTable;
  log_trace_parts: LogTracePartsTable;
}

/** The logs tables of any database that has them (the service's, an ingest transaction): what the log store reads and writes. */
export const logTables = tableView<LogTables>();

// The logs feature's public module: what other features (ingestion, retention, usage) may use.
// They reach log records only through a `LogStore` (app.logStore, made by the telemetry store:
// `sqlLogStore` over the service database, or ClickHouse's); the feature's tables stay inside
// this folder.
export type { ExportedLogRecord, LogCount, LogPageRequest, LogSelection, LogStore, NewLogRecord, SqlLogWriter, StoredLogRecord, TenantLogCount, TenantLogCountRequest } from './log-store.js';
export { sqlLogStore } from './sql-log-store.js';
export { noLogRows, packLogRows, packedCount, type PackedLogRows } from './packed-log-rows.js';
export { bodyWordsPattern } from './log-text-search.js';
/** The type of the feature's tables, for a database that holds them (the service's, the telemetry store's ingest transaction). */
export type { LogTables } from './log-tables.js';
export { inferSeverityNumber, maxSeverityNumber } from './log-severity.js';

// The logs feature's public module: what other features (ingestion, retention, usage) may use.
// They reach log records only through a `LogStore` (app.logStore); the SQL store and the
// feature's tables stay inside this folder.
export type { LogStore, NewLogRecord } from './log-store.js';
/** The type of the feature's tables, for a database that holds them (the service's, the telemetry store's ingest transaction). */
export type { LogTables } from './log-tables.js';
export { inferSeverityNumber, maxSeverityNumber } from './log-severity.js';

// The logs feature's public module: what other features (ingestion, retention, usage) may use.
// They reach log records only through a `LogStore` (app.logStore); the SQL store and the
// feature's tables stay inside this folder.
export type { LogStore, NewLogRecord } from './log-store.js';
export { inferSeverityNumber, maxSeverityNumber } from './log-severity.js';

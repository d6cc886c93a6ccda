// What modules that may run off the main thread (the observability service's SQLite writer
// thread) import from the kit: tables, SQLite connections and the error type, without Fastify,
// pg, Redis or OpenTelemetry, whose loading would cost a worker most of a second.
export { ApiError, type ErrorBody } from './errors/api-error.js';
export { errorStatusOf, type ErrorCode } from './errors/error-codes.js';
export { databaseView, tableView } from './db/table-view.js';
export { applySqlitePragmas, sqliteDatabase, type SqlitePragmaOptions } from './db/sqlite-connection.js';
export type { Database, Dialect } from './db/database.js';
export type { Clock } from './system/clock.js';

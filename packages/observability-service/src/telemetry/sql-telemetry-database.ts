import { databaseView, type Database } from '@playstack/server-kit';
import type { ObservabilityApp } from '../database.js';
import type { ErrorGroupTables } from '../errors/error-group-tables.js';
import type { LogTables } from '../logs/index.js';
import type { TelemetryDatabase } from '../storage/storage-tables.js';

/**
 * Every table the SQL telemetry store writes in one ingest transaction: the storage layer's
 * (occurrences, rollups, tiers, counters), the errors feature's groups and the logs feature's
 * records. Users, sessions, keys and settings are not telemetry.
 */
export interface SqlTelemetryDatabase extends TelemetryDatabase, ErrorGroupTables, LogTables {}

const sqlTelemetryView = databaseView<SqlTelemetryDatabase>();

/** The service database as the SQL telemetry store sees it: the telemetry tables only. */
export function sqlTelemetryDatabase(app: Pick<ObservabilityApp, 'database'>): Database<SqlTelemetryDatabase> {
  return sqlTelemetryView(app.database);
}

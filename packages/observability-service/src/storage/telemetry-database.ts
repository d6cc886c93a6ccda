import { databaseView, tableView } from '@playstack/server-kit/core';
import type { TelemetryDatabase } from './storage-tables.js';

/**
 * The storage layer's tables (occurrences, rollups, tiers, counters) of any database that has
 * them: the service's, an ingest or rebuild transaction that also writes the errors' and logs'
 * tables.
 */
export const telemetryTables = tableView<TelemetryDatabase>();

/** The same for a whole `Database` (the SQL telemetry store's reads, pruning and health figures). */
export const telemetryDatabase = databaseView<TelemetryDatabase>();

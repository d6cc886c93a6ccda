import type { Clock, Database } from '@playstack/server-kit';
import { databaseMigratedUpTo as migratedUpTo, type TestDatabase } from '@playstack/server-kit/testing';
import { observabilityMigrations } from '../../src/migrations/index.js';
import { newestOccurrenceId, setTierWatermark } from '../../src/query/tier-watermark.js';
import type { NewOccurrence } from '../../src/storage/storage-tables.js';
import { OccurrenceWriter } from '../../src/telemetry/occurrence-writer.js';
import { sqlTelemetryDatabase } from '../../src/telemetry/sql-telemetry-database.js';

export { insertRow } from '@playstack/server-kit/testing';

/** The suite's database as an older release of the observability service left it (see the kit's `databaseMigratedUpTo`). */
export async function databaseMigratedUpTo(database: TestDatabase, lastMigration: string): Promise<Database> {
  return migratedUpTo(database, { sqliteFile: 'observability.sqlite', migrations: observabilityMigrations, migrationTablePrefix: 'obs' }, lastMigration);
}

/**
 * An older release's database holding occurrences, its tier watermark at the newest of them, as
 * that release's compactor left it (today's compactor cannot fill an older release's tiers, whose
 * shape may have changed since). Returns the watermark; the caller closes the database.
 */
export async function legacyDatabaseWithOccurrences(legacy: Database, rows: readonly NewOccurrence[], clock: Clock): Promise<number> {
  await new OccurrenceWriter({ database: sqlTelemetryDatabase({ database: legacy }), clock, maxRowsPerTransaction: 10_000 }).write(rows);
  const caughtUp = await newestOccurrenceId(legacy.db);
  await setTierWatermark(legacy.db, caughtUp);
  return caughtUp;
}

import type { Database } from '@playstack/server-kit';
import { databaseMigratedUpTo as migratedUpTo, type TestDatabase } from '@playstack/server-kit/testing';
import { observabilityMigrations } from '../../src/migrations/index.js';

export { insertRow } from '@playstack/server-kit/testing';

/** The suite's database as an older release of the observability service left it (see the kit's `databaseMigratedUpTo`). */
export async function databaseMigratedUpTo(database: TestDatabase, lastMigration: string): Promise<Database> {
  return migratedUpTo(database, { sqliteFile: 'observability.sqlite', migrations: observabilityMigrations, migrationTablePrefix: 'obs' }, lastMigration);
}

import { sql } from 'kysely';
import { openDatabase, type Database } from '../db/database.js';
import { migrateToLatest, type ServiceMigration } from '../db/migrator.js';
import type { TestDatabase } from './test-database.js';

/** Where a service keeps its database: its SQLite file name, migrations and migration table prefix. */
export interface ServiceStorage {
  sqliteFile: string;
  migrations: Readonly<Record<string, ServiceMigration>>;
  migrationTablePrefix: string;
}

/**
 * The suite's database as an older release left it: migrated up to and including `lastMigration`
 * only. Tests fill it as that release would have, then start the current service on it, which
 * runs the remaining migrations.
 */
export async function databaseMigratedUpTo(database: TestDatabase, service: ServiceStorage, lastMigration: string): Promise<Database> {
  const opened = await openDatabase({
    url: database.env.DATABASE_URL,
    schema: database.env.DATABASE_SCHEMA ?? 'public',
    poolSize: 2,
    dataDir: database.env.DATA_DIR!,
    fileName: service.sqliteFile,
    sqliteSynchronous: 'normal',
  });
  const names = Object.keys(service.migrations).sort();
  if (!names.includes(lastMigration)) throw new Error(`no migration named ${lastMigration}`);
  const older = Object.fromEntries(names.filter((name) => name <= lastMigration).map((name) => [name, service.migrations[name]!]));
  await migrateToLatest(opened.db, opened.dialect, older, service.migrationTablePrefix);
  return opened;
}

/** Inserts one row into `table` with exactly the given columns (an older release's shape). */
export async function insertRow(database: Database, table: string, row: Record<string, unknown>): Promise<void> {
  const columns = Object.keys(row);
  await sql`insert into ${sql.table(table)} (${sql.join(columns.map((column) => sql.ref(column)))}) values (${sql.join(columns.map((column) => row[column]))})`.execute(database.db);
}

import { sql } from 'kysely';
import { migrateToLatest, openDatabase, type Database } from '@playstack/server-kit';
import type { TestDatabase } from '@playstack/server-kit/testing';
import { loadObservabilityConfig } from '../../src/config.js';
import { observabilityMigrations } from '../../src/migrations/index.js';

/**
 * The suite's database as an older release left it: migrated up to and including `lastMigration`
 * only, opened as the service opens it. Tests fill it as that release would have, then start the
 * current service on it, which runs the remaining migrations.
 */
export async function databaseMigratedUpTo(database: TestDatabase, lastMigration: string): Promise<Database> {
  const config = loadObservabilityConfig({ LOG_LEVEL: 'silent', ...database.env });
  const opened = await openDatabase({
    url: config.DATABASE_URL,
    schema: config.DATABASE_SCHEMA,
    poolSize: 2,
    dataDir: config.DATA_DIR,
    fileName: 'observability.sqlite',
    sqliteSynchronous: 'normal',
  });
  const names = Object.keys(observabilityMigrations).sort();
  if (!names.includes(lastMigration)) throw new Error(`no migration named ${lastMigration}`);
  const older = Object.fromEntries(names.filter((name) => name <= lastMigration).map((name) => [name, observabilityMigrations[name]!]));
  await migrateToLatest(opened.db, opened.dialect, older, 'obs');
  return opened;
}

/** Inserts one row into `table` with exactly the given columns (an older release's shape). */
export async function insertRow(database: Database, table: string, row: Record<string, unknown>): Promise<void> {
  const columns = Object.keys(row);
  await sql`insert into ${sql.table(table)} (${sql.join(columns.map((column) => sql.ref(column)))}) values (${sql.join(columns.map((column) => row[column]))})`.execute(database.db);
}

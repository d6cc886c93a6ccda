import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { Dialect } from './database.js';

/** A frozen migration: date-named, never edited once released. */
export interface ServiceMigration {
  up(db: Kysely<any>, dialect: Dialect): Promise<void>;
}

/**
 * Runs a service's migrations (a record keyed by date-prefixed names, applied in name order)
 * up to the latest. Throws with the failing migration's name.
 */
export async function migrateToLatest(
  db: Kysely<any>,
  dialect: Dialect,
  migrations: Readonly<Record<string, ServiceMigration>>,
  tablePrefix: string,
): Promise<void> {
  const provider: MigrationProvider = {
    async getMigrations() {
      const out: Record<string, Migration> = {};
      for (const [name, migration] of Object.entries(migrations)) out[name] = { up: (d) => migration.up(d, dialect) };
      return out;
    },
  };
  // Kysely looks for its migration tables by name across every schema unless told which one:
  // another schema's tables (other tenants, parallel test suites) would make it skip creating ours.
  const migrationTableSchema =
    dialect === 'postgres' ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema : undefined;
  const migrator = new Migrator({
    db,
    provider,
    migrationTableName: `${tablePrefix}_migration`,
    migrationLockTableName: `${tablePrefix}_migration_lock`,
    ...(migrationTableSchema ? { migrationTableSchema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

import { Migrator, sql, type DatabaseIntrospector, type Kysely, type Migration, type MigrationProvider, type TableMetadata } from 'kysely';
import type { Dialect } from './database.js';

/** A frozen migration: date-named, never edited once released. */
export interface ServiceMigration {
  up(db: Kysely<any>, dialect: Dialect): Promise<void>;
}

/** A Kysely migrator over a service's migrations and its migration tables (`<tablePrefix>_migration`). */
async function serviceMigrator(
  db: Kysely<any>,
  dialect: Dialect,
  migrations: Readonly<Record<string, ServiceMigration>>,
  tablePrefix: string,
): Promise<Migrator> {
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
  return new Migrator({
    db: migrationTableSchema ? introspectingOnly(db, migrationTableSchema) : db,
    provider,
    migrationTableName: `${tablePrefix}_migration`,
    migrationLockTableName: `${tablePrefix}_migration_lock`,
    ...(migrationTableSchema ? { migrationTableSchema } : {}),
  });
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
  const migrator = await serviceMigrator(db, dialect, migrations, tablePrefix);
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

/**
 * The names of the service's migrations the database has not run (all of them for a database
 * the service never started on), without changing anything: a tool that reads a service's
 * database checks it is at the release's schema.
 */
export async function pendingMigrations(
  db: Kysely<any>,
  dialect: Dialect,
  migrations: Readonly<Record<string, ServiceMigration>>,
  tablePrefix: string,
): Promise<string[]> {
  const migrator = await serviceMigrator(db, dialect, migrations, tablePrefix);
  return (await migrator.getMigrations()).filter((migration) => migration.executedAt === undefined).map((migration) => migration.name);
}

/**
 * `db` with an introspector that sees `schema` alone. Kysely's own looks for its migration tables
 * across every schema of the database, and that query fails ("schema ... does not exist") when
 * another schema is dropped while it runs: tenants sharing a database, parallel test suites.
 */
function introspectingOnly(db: Kysely<any>, schema: string): Kysely<any> {
  const getTables = async (): Promise<TableMetadata[]> => {
    const { rows } = await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = ${schema}`.execute(db);
    return rows.map((row) => ({ name: row.name, schema, isView: false, columns: [] }));
  };
  const introspection: DatabaseIntrospector = {
    async getSchemas() {
      const { rows } = await sql<{ name: string }>`select nspname as name from pg_catalog.pg_namespace where nspname = ${schema}`.execute(db);
      return rows;
    },
    getTables,
    async getMetadata() {
      return { tables: await getTables() };
    },
  };
  return new Proxy(db, {
    get(target, property) {
      if (property === 'introspection') return introspection;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

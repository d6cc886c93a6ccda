import type { Kysely } from 'kysely';
import type { ServiceMigration } from '@playstack/server-kit';

// Column meanings are documented with the tier definitions in src/query/rollup-tiers.ts.

async function createTierTable(db: Kysely<any>, name: string, keyColumns: string[], withHistogram: boolean, extraColumns: string[] = []): Promise<void> {
  let table = db.schema.createTable(name).addColumn('tier_ms', 'bigint', (c) => c.notNull()).addColumn('bucket', 'bigint', (c) => c.notNull());
  for (const column of keyColumns) table = table.addColumn(column, 'text', (c) => c.notNull());
  for (const column of extraColumns) table = table.addColumn(column, 'text');
  table = table
    .addColumn('count', 'bigint', (c) => c.notNull())
    .addColumn('error_count', 'bigint', (c) => c.notNull())
    .addColumn('duration_sum_ms', 'double precision', (c) => c.notNull())
    .addColumn('duration_max_ms', 'double precision', (c) => c.notNull());
  if (withHistogram) table = table.addColumn('histogram', 'text', (c) => c.notNull());
  await table.addPrimaryKeyConstraint(`${name}_pk`, ['tier_ms', 'bucket', ...keyColumns] as never).execute();
}

/**
 * Coarser copies of the per-minute rollups (1 minute, 15 minutes, 1 hour), with "all" rows
 * (empty key) for the filterable columns, so long ranges read a few hundred rows, not millions.
 */
export const rollupTiers: ServiceMigration = {
  async up(db: Kysely<any>) {
    await createTierTable(db, 'service_tiers', ['service', 'environment'], true);
    await createTierTable(db, 'tenant_tiers', ['tenant_id', 'service', 'environment'], false);
    await createTierTable(db, 'statement_tiers', ['service', 'environment', 'db_system', 'statement_hash'], true, ['statement', 'db_operation']);
    await createTierTable(db, 'dependency_tiers', ['environment', 'source_service', 'target', 'target_kind'], true);
    await db.schema
      .createTable('rollup_tier_state')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('value', 'bigint', (c) => c.notNull())
      .execute();
  },
};

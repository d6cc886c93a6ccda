import type { Kysely } from 'kysely';
import type { ServiceMigration } from '@playstack/server-kit';

const tierTables = [
  { name: 'service_tiers', keyColumns: ['service', 'environment'], withHistogram: true, extraColumns: [] },
  { name: 'tenant_tiers', keyColumns: ['tenant_id', 'service', 'environment'], withHistogram: false, extraColumns: [] },
  { name: 'statement_tiers', keyColumns: ['service', 'environment', 'db_system', 'statement_hash'], withHistogram: true, extraColumns: ['statement', 'db_operation'] },
  { name: 'dependency_tiers', keyColumns: ['environment', 'source_service', 'target', 'target_kind'], withHistogram: true, extraColumns: [] },
];

/**
 * Recreates the rollup tiers with a `grain` column (which key columns hold "all") leading the
 * key after the tier, so a view scans only the rows of the grain it reads. The tiers are derived
 * data: the watermark is reset and the compactor rebuilds them from the per-minute rollups.
 */
export const rollupTierGrains: ServiceMigration = {
  async up(db: Kysely<any>) {
    for (const table of tierTables) {
      await db.schema.dropTable(table.name).execute();
      let builder = db.schema
        .createTable(table.name)
        .addColumn('tier_ms', 'bigint', (c) => c.notNull())
        .addColumn('grain', 'integer', (c) => c.notNull())
        .addColumn('bucket', 'bigint', (c) => c.notNull());
      for (const column of table.keyColumns) builder = builder.addColumn(column, 'text', (c) => c.notNull());
      for (const column of table.extraColumns) builder = builder.addColumn(column, 'text');
      builder = builder
        .addColumn('count', 'bigint', (c) => c.notNull())
        .addColumn('error_count', 'bigint', (c) => c.notNull())
        .addColumn('duration_sum_ms', 'double precision', (c) => c.notNull())
        .addColumn('duration_max_ms', 'double precision', (c) => c.notNull());
      if (table.withHistogram) builder = builder.addColumn('histogram', 'text', (c) => c.notNull());
      await builder.addPrimaryKeyConstraint(`${table.name}_pk`, ['tier_ms', 'grain', 'bucket', ...table.keyColumns] as never).execute();
    }
    await db.deleteFrom('rollup_tier_state').execute();
  },
};

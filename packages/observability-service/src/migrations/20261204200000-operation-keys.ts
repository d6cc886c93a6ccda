import type { Kysely } from 'kysely';
import type { Dialect, ServiceMigration } from '@playstack/server-kit';

/**
 * The operation tiers keyed by one integer: `operation_keys` gives each distinct (service,
 * environment, operation, kind, span role) of the operation rollups an id, and `operation_tiers`
 * holds the id instead of the five text columns. The top-operations view groups a day's buckets
 * by key; SQLite groups an integer faster than five strings, and the rows are narrower.
 *
 * The tiers are derived data: the table is recreated empty and the tier watermark moved back to
 * the start, so the compactor recomputes every tier on its next runs (exact answers meanwhile,
 * from the per-minute rollups, as in 20261203160000-six-hour-tier.ts). The dictionary fills as
 * the compactor folds the rollups in; its ids never change.
 */
export const operationKeys: ServiceMigration = {
  async up(db: Kysely<any>, dialect: Dialect) {
    const keyColumns = ['service', 'environment', 'operation', 'kind', 'span_role'];
    let keys = db.schema
      .createTable('operation_keys')
      .addColumn('id', 'integer', (c) => (dialect === 'postgres' ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey()));
    for (const column of keyColumns) keys = keys.addColumn(column, 'text', (c) => c.notNull());
    await keys.addUniqueConstraint('operation_keys_key', keyColumns as never).execute();

    await db.schema.dropTable('operation_tiers').execute();
    await db.schema
      .createTable('operation_tiers')
      .addColumn('tier_ms', 'bigint', (c) => c.notNull())
      .addColumn('grain', 'integer', (c) => c.notNull())
      .addColumn('bucket', 'bigint', (c) => c.notNull())
      .addColumn('operation_key', 'integer', (c) => c.notNull())
      .addColumn('count', 'bigint', (c) => c.notNull())
      .addColumn('error_count', 'bigint', (c) => c.notNull())
      .addColumn('duration_sum_ms', 'double precision', (c) => c.notNull())
      .addColumn('duration_max_ms', 'double precision', (c) => c.notNull())
      .addColumn('histogram', 'text', (c) => c.notNull())
      .addColumn('error_histogram', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('operation_tiers_pk', ['tier_ms', 'grain', 'bucket', 'operation_key'] as never)
      .execute();

    await db.updateTable('rollup_tier_state').set({ value: 0 }).where('name', '=', 'occurrence-id').execute();
  },
};

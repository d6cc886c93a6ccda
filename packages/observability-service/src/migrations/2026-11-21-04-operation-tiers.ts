import type { Kysely } from 'kysely';
import type { ServiceMigration } from '@playstack/server-kit';

/**
 * The operation rollups' own tier (see `operationTiers` in src/query/rollup-tiers.ts), so the
 * top-operations view reads hour buckets instead of every minute of every operation. Laid out as
 * the other tiers. The watermark is reset so the compactor builds it for the data already stored
 * (the other tiers are recomputed in place, to the same figures); until it has, queries read the
 * per-minute rollups.
 */
export const operationTiers: ServiceMigration = {
  async up(db: Kysely<any>) {
    let table = db.schema
      .createTable('operation_tiers')
      .addColumn('tier_ms', 'bigint', (c) => c.notNull())
      .addColumn('grain', 'integer', (c) => c.notNull())
      .addColumn('bucket', 'bigint', (c) => c.notNull());
    for (const column of ['service', 'environment', 'operation', 'kind']) table = table.addColumn(column, 'text', (c) => c.notNull());
    await table
      .addColumn('count', 'bigint', (c) => c.notNull())
      .addColumn('error_count', 'bigint', (c) => c.notNull())
      .addColumn('duration_sum_ms', 'double precision', (c) => c.notNull())
      .addColumn('duration_max_ms', 'double precision', (c) => c.notNull())
      .addColumn('histogram', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('operation_tiers_pk', ['tier_ms', 'grain', 'bucket', 'service', 'environment', 'operation', 'kind'] as never)
      .execute();
    await db.deleteFrom('rollup_tier_state').execute();
  },
};

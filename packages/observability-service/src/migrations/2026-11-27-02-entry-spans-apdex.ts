import type { CreateTableBuilder, Kysely } from 'kysely';
import type { ServiceMigration } from '@playstack/server-kit';

// Column meanings are documented on the table types in src/storage/storage-tables.ts and with the
// tier definitions in src/query/rollup-tiers.ts.

/** The figures every operation rollup and tier row carries after its key. */
function withFigures(table: CreateTableBuilder<string>): CreateTableBuilder<string> {
  return table
    .addColumn('count', 'bigint', (c) => c.notNull())
    .addColumn('error_count', 'bigint', (c) => c.notNull())
    .addColumn('duration_sum_ms', 'double precision', (c) => c.notNull())
    .addColumn('duration_max_ms', 'double precision', (c) => c.notNull())
    .addColumn('histogram', 'text', (c) => c.notNull())
    .addColumn('error_histogram', 'text', (c) => c.notNull());
}

/**
 * A service's figures count its entry spans (storage/span-role.ts), and Apdex needs the error
 * latencies apart: the operation rollups gain a `span_role` key column and an `error_histogram`,
 * and so do the tiers derived from them. The rollups are recomputed from the raw occurrences at
 * the next start (src/storage/rollup-rebuild.ts), the tiers after them. Per-service settings
 * (the Apdex threshold) get their table.
 */
export const entrySpansApdex: ServiceMigration = {
  async up(db: Kysely<any>) {
    const keys = ['service', 'environment', 'operation', 'kind', 'span_role'];
    await db.schema.dropTable('operation_rollups').execute();
    let rollups = db.schema.createTable('operation_rollups').addColumn('minute', 'bigint', (c) => c.notNull());
    for (const column of keys) rollups = rollups.addColumn(column, 'text', (c) => c.notNull());
    await withFigures(rollups).addPrimaryKeyConstraint('operation_rollups_pk', ['minute', ...keys] as never).execute();

    const tiers = [
      { name: 'service_tiers', keys: ['service', 'environment', 'span_role'] },
      { name: 'operation_tiers', keys },
    ];
    for (const tier of tiers) {
      await db.schema.dropTable(tier.name).execute();
      let table = db.schema
        .createTable(tier.name)
        .addColumn('tier_ms', 'bigint', (c) => c.notNull())
        .addColumn('grain', 'integer', (c) => c.notNull())
        .addColumn('bucket', 'bigint', (c) => c.notNull());
      for (const column of tier.keys) table = table.addColumn(column, 'text', (c) => c.notNull());
      await withFigures(table).addPrimaryKeyConstraint(`${tier.name}_pk`, ['tier_ms', 'grain', 'bucket', ...tier.keys] as never).execute();
    }

    await db.schema
      .createTable('service_settings')
      .addColumn('service', 'text', (c) => c.primaryKey())
      .addColumn('apdex_threshold_ms', 'double precision', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_by', 'text')
      .execute();

    await db.deleteFrom('rollup_tier_state').where('name', '=', 'occurrence-id').execute();
    await db.insertInto('rollup_tier_state').values({ name: 'rebuild:operation-rollups', value: 1 }).onConflict((oc) => oc.column('name').doNothing()).execute();
  },
};

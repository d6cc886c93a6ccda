import { sql, type Kysely } from 'kysely';
import { autoIncrementPrimaryKey, portable, type Dialect, type ServiceMigration } from '@playstack/server-kit';

// Column meanings are documented on the table types in src/storage/storage-tables.ts.

/** A rollup table: the minute and `keyColumns` form the primary key; `extraColumns` describe it. */
async function createRollupTable(
  db: Kysely<any>,
  name: string,
  keyColumns: string[],
  extraColumns: Array<{ name: string; nullable: boolean }> = [],
): Promise<void> {
  let table = db.schema.createTable(name).addColumn('minute', 'bigint', (c) => c.notNull());
  for (const column of keyColumns) table = table.addColumn(column, 'text', (c) => c.notNull());
  for (const column of extraColumns) table = table.addColumn(column.name, 'text', (c) => (column.nullable ? c : c.notNull()));
  await table
    .addColumn('count', 'bigint', (c) => c.notNull())
    .addColumn('error_count', 'bigint', (c) => c.notNull())
    .addColumn('duration_sum_ms', 'double precision', (c) => c.notNull())
    .addColumn('duration_max_ms', 'double precision', (c) => c.notNull())
    .addColumn('histogram', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint(`${name}_pk`, ['minute', ...keyColumns] as never)
    .execute();
}

export const occurrencesAndRollups: ServiceMigration = {
  async up(db: Kysely<any>, dialect: Dialect) {
    await db.schema
      .createTable('occurrences')
      .addColumn('id', portable.autoId(dialect), autoIncrementPrimaryKey(dialect))
      .addColumn('client_id', 'text')
      .addColumn('trace_id', 'text', (c) => c.notNull())
      .addColumn('span_id', 'text', (c) => c.notNull())
      .addColumn('parent_span_id', 'text')
      .addColumn('service', 'text', (c) => c.notNull())
      .addColumn('environment', 'text', (c) => c.notNull())
      .addColumn('service_version', 'text')
      .addColumn('instance', 'text')
      .addColumn('operation', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('started_at', 'bigint', (c) => c.notNull())
      .addColumn('duration_ms', 'double precision', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('tenant_id', 'text')
      .addColumn('http_method', 'text')
      .addColumn('http_route', 'text')
      .addColumn('http_status_code', 'integer')
      .addColumn('db_system', 'text')
      .addColumn('db_statement', 'text')
      .addColumn('db_statement_hash', 'text')
      .addColumn('db_operation', 'text')
      .addColumn('peer_service', 'text')
      .addColumn('peer_address', 'text')
      .addColumn('error_type', 'text')
      .addColumn('error_message', 'text')
      .addColumn('error_stack', 'text')
      .addColumn('attributes', 'text')
      .addColumn('received_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('occurrences_started_at').on('occurrences').columns(['started_at']).execute();
    await db.schema
      .createIndex('occurrences_service_started_at')
      .on('occurrences')
      .columns(['service', 'environment', 'started_at'])
      .execute();
    await db.schema
      .createIndex('occurrences_operation_started_at')
      .on('occurrences')
      .columns(['service', 'operation', 'started_at'])
      .execute();
    await db.schema.createIndex('occurrences_trace').on('occurrences').columns(['trace_id', 'span_id']).execute();
    await db.schema
      .createIndex('occurrences_tenant_started_at')
      .on('occurrences')
      .columns(['tenant_id', 'started_at'])
      .where(sql.ref('tenant_id'), 'is not', null)
      .execute();
    await db.schema
      .createIndex('occurrences_errors_started_at')
      .on('occurrences')
      .columns(['started_at'])
      .where(sql.ref('status'), '=', 'error')
      .execute();

    await createRollupTable(db, 'operation_rollups', ['service', 'environment', 'operation', 'kind']);
    await createRollupTable(db, 'tenant_rollups', ['tenant_id', 'service', 'environment']);
    await createRollupTable(
      db,
      'statement_rollups',
      ['service', 'environment', 'db_system', 'statement_hash'],
      [
        { name: 'statement', nullable: false },
        { name: 'db_operation', nullable: true },
      ],
    );
    await createRollupTable(db, 'dependency_rollups', ['environment', 'source_service', 'target', 'target_kind']);
  },
};

import { sql, type Kysely } from 'kysely';
import type { Dialect, ServiceMigration } from '@playstack/server-kit';

// Column meanings are documented on the table types in src/logs/log-tables.ts.

/** A per-period count table: the period, bucket and `keyColumns` form the primary key. */
async function createCountTable(db: Kysely<any>, name: string, keyColumns: Array<{ name: string; type: 'text' | 'integer' }>): Promise<void> {
  let table = db.schema.createTable(name).addColumn('period_ms', 'integer', (c) => c.notNull()).addColumn('bucket', 'bigint', (c) => c.notNull());
  for (const column of keyColumns) table = table.addColumn(column.name, column.type, (c) => c.notNull());
  await table
    .addColumn('count', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint(`${name}_pk`, ['period_ms', 'bucket', ...keyColumns.map((column) => column.name)] as never)
    .execute();
}

/**
 * Log records (OTLP logs and protocol v1 `logs`), their text index and their counts. The id is
 * time-ordered (src/logs/log-ids.ts), so the primary key is also the time index. Secondary
 * indexes are ones whose inserts stay near the end of the index (service, and the partial
 * warn+/error+ ones): a B-tree keyed by a random trace id would cost a random page write per
 * record. Trace ids are found through the text index on SQLite (FTS5 writes sorted segments per
 * transaction), through a B-tree on PostgreSQL.
 */
export const logs: ServiceMigration = {
  async up(db: Kysely<any>, dialect: Dialect) {
    await db.schema
      .createTable('logs')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('time_ms', 'bigint', (c) => c.notNull())
      .addColumn('time_ns', 'integer', (c) => c.notNull())
      .addColumn('observed_ms', 'bigint', (c) => c.notNull())
      .addColumn('severity_number', 'integer', (c) => c.notNull())
      .addColumn('severity_text', 'text')
      .addColumn('body', 'text')
      .addColumn('body_json', 'integer', (c) => c.notNull())
      .addColumn('event_name', 'text')
      .addColumn('service', 'text', (c) => c.notNull())
      .addColumn('environment', 'text', (c) => c.notNull())
      .addColumn('service_version', 'text')
      .addColumn('instance', 'text')
      .addColumn('scope_name', 'text')
      .addColumn('scope_version', 'text')
      .addColumn('trace_id', 'text')
      .addColumn('span_id', 'text')
      .addColumn('flags', 'integer', (c) => c.notNull())
      .addColumn('tenant_id', 'text')
      .addColumn('attributes', 'text')
      .addColumn('resource_attributes', 'text')
      .addColumn('received_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('logs_service_id').on('logs').columns(['service', 'id']).execute();
    // Literal thresholds: a query names the same literal so the planner can use the partial index.
    await db.schema.createIndex('logs_warn_id').on('logs').column('id').where(sql.ref('severity_number'), '>=', sql.lit(13)).execute();
    await db.schema.createIndex('logs_error_id').on('logs').column('id').where(sql.ref('severity_number'), '>=', sql.lit(17)).execute();
    if (dialect === 'postgres') {
      await db.schema.createIndex('logs_trace').on('logs').column('trace_id').where(sql.ref('trace_id'), 'is not', null).execute();
      // Must match logBodyVector() in src/logs/log-text-search.ts exactly, or the planner will not use it.
      await sql`create index logs_body_text on logs using gin (to_tsvector('simple'::regconfig, regexp_replace(coalesce(body, ''), '[^[:alnum:]]+', ' ', 'g')))`.execute(db);
    } else {
      await sql`create virtual table logs_fts using fts5(body, trace, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 0')`.execute(db);
    }
    await createCountTable(db, 'log_counts', [
      { name: 'service', type: 'text' },
      { name: 'environment', type: 'text' },
      { name: 'severity_number', type: 'integer' },
    ]);
    await createCountTable(db, 'log_tenant_counts', [
      { name: 'tenant_id', type: 'text' },
      { name: 'service', type: 'text' },
      { name: 'environment', type: 'text' },
    ]);
  },
};

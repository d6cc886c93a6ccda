import { sql, type Kysely } from 'kysely';
import type { ServiceMigration } from '@playstack/server-kit';

// Column meanings are documented on the table types in src/errors/error-group-tables.ts.

/**
 * Errors grouped by fingerprint (src/errors/error-fingerprint.ts): each error occurrence stores
 * its group's id; a group keeps its parts, first and last seen, count, an example and its status;
 * per-hour counts per environment give the list's counts and trends, per-tenant counts the
 * affected tenants. Occurrences stored before this migration are grouped at the next start
 * (src/errors/error-groups-rebuild.ts).
 */
export const errorGroups: ServiceMigration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('occurrences').addColumn('error_group_id', 'text').execute();
    await db.schema
      .createIndex('occurrences_error_group_started_at')
      .on('occurrences')
      .columns(['error_group_id', 'started_at'])
      .where(sql.ref('error_group_id'), 'is not', null)
      .execute();

    await db.schema
      .createTable('error_groups')
      .addColumn('group_id', 'text', (c) => c.primaryKey())
      .addColumn('service', 'text', (c) => c.notNull())
      .addColumn('error_type', 'text', (c) => c.notNull())
      .addColumn('message', 'text', (c) => c.notNull())
      .addColumn('top_frame', 'text', (c) => c.notNull())
      .addColumn('example_message', 'text')
      .addColumn('first_seen', 'bigint', (c) => c.notNull())
      .addColumn('last_seen', 'bigint', (c) => c.notNull())
      .addColumn('count', 'bigint', (c) => c.notNull())
      .addColumn('example_trace_id', 'text', (c) => c.notNull())
      .addColumn('example_span_id', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('status_changed_at', 'bigint')
      .addColumn('status_changed_by', 'text')
      .addColumn('resolved_at', 'bigint')
      .execute();
    await db.schema.createIndex('error_groups_last_seen').on('error_groups').columns(['last_seen']).execute();

    await db.schema
      .createTable('error_group_hours')
      .addColumn('group_id', 'text', (c) => c.notNull())
      .addColumn('environment', 'text', (c) => c.notNull())
      .addColumn('hour', 'bigint', (c) => c.notNull())
      .addColumn('count', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('error_group_hours_pk', ['group_id', 'environment', 'hour'])
      .execute();
    await db.schema.createIndex('error_group_hours_hour').on('error_group_hours').columns(['hour', 'environment', 'group_id', 'count']).execute();

    await db.schema
      .createTable('error_group_tenants')
      .addColumn('group_id', 'text', (c) => c.notNull())
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('count', 'bigint', (c) => c.notNull())
      .addColumn('last_seen', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('error_group_tenants_pk', ['group_id', 'tenant_id'])
      .execute();

    await db.insertInto('rollup_tier_state').values({ name: 'rebuild:error-groups', value: 1 }).onConflict((oc) => oc.column('name').doNothing()).execute();
  },
};

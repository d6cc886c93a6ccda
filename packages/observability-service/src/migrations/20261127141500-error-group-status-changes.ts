import { sql, type Kysely } from 'kysely';
import type { ServiceMigration } from '@playstack/server-kit';

/**
 * Every status a user gave an error group, with its time: what the group's status was at any past
 * moment (an alert rule evaluating a past minute asks whether a group was resolved then). Filled
 * with the resolutions already stored (`error_groups.resolved_at`), the only past changes known.
 */
export const errorGroupStatusChanges: ServiceMigration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('error_group_status_changes')
      .addColumn('group_id', 'text', (c) => c.notNull())
      .addColumn('changed_at', 'bigint', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('changed_by', 'text')
      .execute();
    await db.schema.createIndex('error_group_status_changes_group').on('error_group_status_changes').columns(['group_id', 'changed_at']).execute();
    await sql`
      insert into error_group_status_changes (group_id, changed_at, status, changed_by)
      select group_id, resolved_at, 'resolved', status_changed_by from error_groups where resolved_at is not null
    `.execute(db);
  },
};

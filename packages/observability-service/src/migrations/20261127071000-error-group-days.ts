import { sql, type Kysely } from 'kysely';
import type { ServiceMigration } from '@playstack/server-kit';

/**
 * Error occurrences per group, environment and UTC day, next to the per-hour counts: a week's
 * list sums a few rows per group and day instead of 168 hours (the hours remain for the partial
 * days at a range's ends and for the trends). Filled from the stored hours, which they always sum.
 */
export const errorGroupDays: ServiceMigration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('error_group_days')
      .addColumn('group_id', 'text', (c) => c.notNull())
      .addColumn('environment', 'text', (c) => c.notNull())
      .addColumn('day', 'bigint', (c) => c.notNull())
      .addColumn('count', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('error_group_days_pk', ['group_id', 'environment', 'day'])
      .execute();
    await db.schema.createIndex('error_group_days_day').on('error_group_days').columns(['day', 'environment', 'group_id', 'count']).execute();
    await sql`
      insert into error_group_days (group_id, environment, day, count)
      select group_id, environment, hour - (hour % 86400000), sum(count)
      from error_group_hours
      group by group_id, environment, hour - (hour % 86400000)
    `.execute(db);
  },
};

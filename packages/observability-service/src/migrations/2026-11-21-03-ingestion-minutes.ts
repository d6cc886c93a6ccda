import type { Kysely } from 'kysely';
import type { ServiceMigration } from '@playstack/server-kit';

/**
 * Per receipt minute: items accepted and refused by ingestion, for the health view. Refused
 * items are stored nowhere else, and counting accepted ones by receipt time from the raw table
 * would need another index on it.
 */
export const ingestionMinutes: ServiceMigration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('ingestion_minutes')
      .addColumn('minute', 'bigint', (c) => c.primaryKey())
      .addColumn('accepted', 'bigint', (c) => c.notNull())
      .addColumn('refused', 'bigint', (c) => c.notNull())
      .execute();
  },
};

import type { Kysely } from 'kysely';
import type { ServiceMigration } from '@playstack/server-kit';

/**
 * Statements are normalized by their database system (SQL dialects, Redis, MongoDB; others kept
 * as sent): the database rollups are recomputed from the stored statements at the next start
 * (src/storage/rollup-rebuild.ts), and the tiers after them.
 */
export const statementShapes: ServiceMigration = {
  async up(db: Kysely<any>) {
    await db.insertInto('rollup_tier_state').values({ name: 'rebuild:statement-rollups', value: 1 }).onConflict((oc) => oc.column('name').doNothing()).execute();
  },
};

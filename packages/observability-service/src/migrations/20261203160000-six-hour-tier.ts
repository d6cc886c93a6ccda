import type { Kysely } from 'kysely';
import type { ServiceMigration } from '@playstack/server-kit';

/**
 * The operation, dependency and tenant tiers gain 6-hour buckets (`sizesMs` in
 * src/query/rollup-tiers.ts); no column changes. The tiers are derived data, so instead of
 * computing the new buckets here (with code that may not match the tables' later shape), the
 * migration moves the tier watermark back to the start: the compactor recomputes every tier,
 * 6-hour buckets included, on its next runs, a chunk of occurrences per transaction as always.
 * Until it has caught up, a query reads the minutes it has not reached from the per-minute
 * rollups: the figures stay exact, only slower (at 10M occurrences the recomputation took 8-11
 * minutes on a 2-core machine).
 */
export const sixHourTier: ServiceMigration = {
  async up(db: Kysely<any>) {
    await db.updateTable('rollup_tier_state').set({ value: 0 }).where('name', '=', 'occurrence-id').execute();
  },
};

import type { Kysely } from 'kysely';
import type { ServiceMigration } from '@playstack/server-kit';

/**
 * The dependency tiers gain 5-minute buckets (`sizesMs` in src/query/rollup-tiers.ts); no column
 * changes. As for the 6-hour tier (20261203160000-six-hour-tier.ts): the tier watermark moves back to the start and the compactor
 * recomputes every tier on its next runs, a chunk of occurrences per transaction; until it has
 * caught up, queries read the minutes it has not reached from the per-minute rollups, exact and
 * slower (at 10M occurrences the recomputation takes about 11 minutes on a 2-core machine).
 */
export const dependencyFiveMinuteTier: ServiceMigration = {
  async up(db: Kysely<any>) {
    await db.updateTable('rollup_tier_state').set({ value: 0 }).where('name', '=', 'occurrence-id').execute();
  },
};

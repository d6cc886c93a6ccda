import type { Kysely } from 'kysely';
import type { ServiceMigration } from '@playstack/server-kit';

/**
 * Board subscores and entry metadata: `subscore` is the tie-break a board may declare (0 on
 * boards without one, and on entries recorded before their board declared it), placed in the
 * rank index right after the score so keyset reads and counts of tied scores stay index range
 * scans; `metadata` is the entry's small JSON object of the adapter outputs its board keeps
 * (null when the board keeps none).
 */
export const entrySubscoresAndMetadataMigration: ServiceMigration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('leaderboard_entries').addColumn('subscore', 'double precision', (col) => col.notNull().defaultTo(0)).execute();
    await db.schema.alterTable('leaderboard_entries').addColumn('metadata', 'text').execute();
    await db.schema.dropIndex('leaderboard_entries_rank').execute();
    await db.schema
      .createIndex('leaderboard_entries_rank')
      .on('leaderboard_entries')
      .columns(['game_id', 'board_id', 'period', 'hidden', 'score', 'subscore', 'achieved_at', 'player_id'])
      .execute();
  },
};

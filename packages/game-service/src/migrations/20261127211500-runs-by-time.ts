import type { Kysely } from 'kysely';
import type { ServiceMigration } from '@playstack/server-kit';

/**
 * Runs of a game by time: the admin game page counts a game's runs per hour and status over the
 * last hours. Leading with (game, created_at) makes that a range scan of the window only, and
 * carrying `status` makes the index cover the query (no table reads), however large `runs` grows.
 */
export const runsByTimeMigration: ServiceMigration = {
  async up(db: Kysely<any>) {
    await db.schema.createIndex('runs_game_created_status').on('runs').columns(['game_id', 'created_at', 'status']).execute();
  },
};

import { sql, type Kysely } from 'kysely';
import type { ServiceMigration } from '@playstack/server-kit';

/**
 * One row per (game, board, period key, player). Scores are doubles so every engine (SQL,
 * Redis sorted sets, the in-process skip list) holds the same value. Player ids compare by
 * bytes on PostgreSQL too (collation "C"), matching SQLite and Redis for the tie-break.
 */
export const leaderboardEntriesMigration: ServiceMigration = {
  async up(db: Kysely<any>, dialect) {
    await db.schema
      .createTable('leaderboard_entries')
      .addColumn('game_id', 'text', (col) => col.notNull())
      .addColumn('board_id', 'text', (col) => col.notNull())
      .addColumn('period', 'text', (col) => col.notNull())
      .addColumn('player_id', dialect === 'postgres' ? sql`text collate "C"` : 'text', (col) => col.notNull())
      .addColumn('display_name', 'text', (col) => col.notNull())
      .addColumn('score', 'double precision', (col) => col.notNull())
      .addColumn('achieved_at', 'bigint', (col) => col.notNull())
      .addColumn('updated_at', 'bigint', (col) => col.notNull())
      .addPrimaryKeyConstraint('leaderboard_entries_pk', ['game_id', 'board_id', 'period', 'player_id'])
      .execute();
    // Keyset pages, counts of entries ranked before a key, and the rank engine's rebuild.
    await db.schema
      .createIndex('leaderboard_entries_rank')
      .on('leaderboard_entries')
      .columns(['game_id', 'board_id', 'period', 'score', 'achieved_at', 'player_id'])
      .execute();
    // A player's entries across boards and periods: syncing the engine after a write, erasure.
    await db.schema.createIndex('leaderboard_entries_player').on('leaderboard_entries').columns(['game_id', 'player_id']).execute();
  },
};

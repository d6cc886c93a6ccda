import type { Kysely } from 'kysely';
import { autoIncrementPrimaryKey, portable, type ServiceMigration } from '@playstack/server-kit';

/**
 * Player moderation: entries of a hidden player stay in place with `hidden = 1` (so unhiding
 * restores them exactly) and leave every rank; the rank index leads with `hidden` after the set,
 * so visible-only seeks and counts stay index range scans. `leaderboard_hidden_players` says who
 * is hidden (and until when, and whether in shadow mode); runs gain an operator's review; every
 * operator action is kept in `moderation_audit`.
 */
export const moderationMigration: ServiceMigration = {
  async up(db: Kysely<any>, dialect) {
    await db.schema.alterTable('leaderboard_entries').addColumn('hidden', 'integer', (col) => col.notNull().defaultTo(0)).execute();
    await db.schema.dropIndex('leaderboard_entries_rank').execute();
    await db.schema
      .createIndex('leaderboard_entries_rank')
      .on('leaderboard_entries')
      .columns(['game_id', 'board_id', 'period', 'hidden', 'score', 'achieved_at', 'player_id'])
      .execute();
    await db.schema
      .createTable('leaderboard_hidden_players')
      .addColumn('game_id', 'text', (col) => col.notNull())
      .addColumn('player_id', 'text', (col) => col.notNull())
      .addColumn('shadow', 'integer', (col) => col.notNull())
      .addColumn('hidden_at', 'bigint', (col) => col.notNull())
      .addColumn('hidden_until', 'bigint')
      .addPrimaryKeyConstraint('leaderboard_hidden_players_pk', ['game_id', 'player_id'])
      .execute();
    await db.schema.createIndex('leaderboard_hidden_players_until').on('leaderboard_hidden_players').columns(['hidden_until']).execute();
    await db.schema.alterTable('runs').addColumn('review', 'text').execute();
    await db.schema.alterTable('runs').addColumn('reviewed_at', 'bigint').execute();
    await db.schema
      .createTable('moderation_audit')
      .addColumn('id', portable.autoId(dialect), autoIncrementPrimaryKey(dialect))
      .addColumn('game_id', 'text', (col) => col.notNull())
      .addColumn('player_id', 'text', (col) => col.notNull())
      .addColumn('actor', 'text', (col) => col.notNull())
      .addColumn('action', 'text', (col) => col.notNull())
      .addColumn('reason', 'text', (col) => col.notNull())
      .addColumn('before', 'text')
      .addColumn('after', 'text')
      .addColumn('created_at', 'bigint', (col) => col.notNull())
      .execute();
    await db.schema.createIndex('moderation_audit_player').on('moderation_audit').columns(['game_id', 'player_id', 'id']).execute();
  },
};

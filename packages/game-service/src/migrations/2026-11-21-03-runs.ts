import type { Kysely } from 'kysely';
import { autoIncrementPrimaryKey, portable, type ServiceMigration } from '@playstack/server-kit';

/**
 * Submitted runs, accepted or rejected, with their evidence, derived result and the response
 * first sent, so a resubmission of the same content gets the same answer. The unique key on
 * (game, player, runId) is what makes concurrent duplicates collapse into one run.
 */
export const runs: ServiceMigration = {
  async up(db: Kysely<any>, dialect) {
    await db.schema
      .createTable('runs')
      .addColumn('id', portable.autoId(dialect), autoIncrementPrimaryKey(dialect))
      .addColumn('game_id', 'text', (col) => col.notNull())
      .addColumn('player_id', 'text', (col) => col.notNull())
      .addColumn('run_id', 'text', (col) => col.notNull())
      .addColumn('adapter_id', 'text', (col) => col.notNull())
      .addColumn('adapter_type', 'text', (col) => col.notNull())
      .addColumn('adapter_version', 'integer', (col) => col.notNull())
      .addColumn('content_hash', 'text', (col) => col.notNull())
      // accepted, flagged (accepted, but the client's hints disagreed) or rejected
      .addColumn('status', 'text', (col) => col.notNull())
      .addColumn('payload', 'text', (col) => col.notNull())
      .addColumn('result', 'text')
      .addColumn('hint_mismatches', 'text')
      .addColumn('rejection_reason', 'text')
      .addColumn('response_status', 'integer', (col) => col.notNull())
      .addColumn('response_body', 'text')
      .addColumn('created_at', 'bigint', (col) => col.notNull())
      .addUniqueConstraint('runs_game_player_run_id', ['game_id', 'player_id', 'run_id'])
      .execute();
    await db.schema.createIndex('runs_game_id_id').on('runs').columns(['game_id', 'id']).execute();
    await db.schema.createIndex('runs_game_status_id').on('runs').columns(['game_id', 'status', 'id']).execute();
  },
};

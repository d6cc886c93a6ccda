import type { Kysely } from 'kysely';
import type { ServiceMigration } from '@playstack/server-kit';

/**
 * Manifest versions, service settings (the generated token secret), players with their platform
 * link, and refresh-token families with their tokens (hashes only).
 */
export const identityMigration: ServiceMigration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('manifest_versions')
      .addColumn('version', 'integer', (col) => col.primaryKey())
      .addColumn('document', 'text', (col) => col.notNull())
      .addColumn('author', 'varchar(200)')
      .addColumn('created_at', 'bigint', (col) => col.notNull())
      .execute();

    await db.schema
      .createTable('service_settings')
      .addColumn('name', 'varchar(100)', (col) => col.primaryKey())
      .addColumn('value', 'text', (col) => col.notNull())
      .execute();

    await db.schema
      .createTable('players')
      .addColumn('id', 'varchar(64)', (col) => col.primaryKey())
      .addColumn('game_id', 'varchar(48)', (col) => col.notNull())
      .addColumn('provider', 'varchar(64)', (col) => col.notNull())
      .addColumn('provider_subject', 'varchar(255)', (col) => col.notNull())
      .addColumn('display_name', 'varchar(255)', (col) => col.notNull())
      .addColumn('created_at', 'bigint', (col) => col.notNull())
      .addColumn('last_seen_at', 'bigint', (col) => col.notNull())
      .execute();
    await db.schema
      .createIndex('players_platform_link')
      .on('players')
      .columns(['game_id', 'provider', 'provider_subject'])
      .unique()
      .execute();

    await db.schema
      .createTable('session_families')
      .addColumn('id', 'varchar(64)', (col) => col.primaryKey())
      .addColumn('game_id', 'varchar(48)', (col) => col.notNull())
      .addColumn('player_id', 'varchar(64)', (col) => col.notNull().references('players.id'))
      .addColumn('generation', 'integer', (col) => col.notNull())
      .addColumn('rotated_at', 'bigint', (col) => col.notNull())
      .addColumn('grace_used', 'integer', (col) => col.notNull())
      .addColumn('created_at', 'bigint', (col) => col.notNull())
      .addColumn('revoked_at', 'bigint')
      .addColumn('revoked_reason', 'varchar(32)')
      .execute();
    await db.schema.createIndex('session_families_player').on('session_families').column('player_id').execute();

    await db.schema
      .createTable('refresh_tokens')
      .addColumn('token_hash', 'varchar(64)', (col) => col.primaryKey())
      .addColumn('family_id', 'varchar(64)', (col) => col.notNull().references('session_families.id'))
      .addColumn('generation', 'integer', (col) => col.notNull())
      .addColumn('issued_at', 'bigint', (col) => col.notNull())
      .addColumn('expires_at', 'bigint', (col) => col.notNull())
      .execute();
    await db.schema.createIndex('refresh_tokens_family').on('refresh_tokens').column('family_id').execute();
  },
};

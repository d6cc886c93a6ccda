import type { Kysely } from 'kysely';
import type { ServiceMigration } from '@playstack/server-kit';

/**
 * Users, their browser sessions, invitations, password reset tokens, ingestion keys and the
 * settings table (retention). Every secret column holds a SHA-256 or argon2id hash, never the
 * secret itself.
 */
export const usersSessionsKeys: ServiceMigration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('users')
      .addColumn('id', 'text', (col) => col.primaryKey())
      .addColumn('email', 'text', (col) => col.notNull().unique())
      .addColumn('name', 'text', (col) => col.notNull())
      .addColumn('role', 'text', (col) => col.notNull())
      .addColumn('password_hash', 'text', (col) => col.notNull())
      .addColumn('active', 'integer', (col) => col.notNull().defaultTo(1))
      .addColumn('created_at', 'bigint', (col) => col.notNull())
      .addColumn('updated_at', 'bigint', (col) => col.notNull())
      .execute();

    await db.schema
      .createTable('user_sessions')
      .addColumn('id_hash', 'text', (col) => col.primaryKey())
      .addColumn('user_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
      .addColumn('created_at', 'bigint', (col) => col.notNull())
      .addColumn('last_seen_at', 'bigint', (col) => col.notNull())
      .addColumn('idle_expires_at', 'bigint', (col) => col.notNull())
      .addColumn('absolute_expires_at', 'bigint', (col) => col.notNull())
      .execute();
    await db.schema.createIndex('user_sessions_user_id').on('user_sessions').column('user_id').execute();

    await db.schema
      .createTable('user_invitations')
      .addColumn('id', 'text', (col) => col.primaryKey())
      .addColumn('email', 'text', (col) => col.notNull())
      .addColumn('role', 'text', (col) => col.notNull())
      .addColumn('token_hash', 'text', (col) => col.notNull().unique())
      .addColumn('invited_by', 'text', (col) => col.references('users.id').onDelete('set null'))
      .addColumn('created_at', 'bigint', (col) => col.notNull())
      .addColumn('expires_at', 'bigint', (col) => col.notNull())
      .addColumn('accepted_at', 'bigint')
      .addColumn('revoked_at', 'bigint')
      .execute();

    await db.schema
      .createTable('password_reset_tokens')
      .addColumn('id', 'text', (col) => col.primaryKey())
      .addColumn('user_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
      .addColumn('token_hash', 'text', (col) => col.notNull().unique())
      .addColumn('created_at', 'bigint', (col) => col.notNull())
      .addColumn('expires_at', 'bigint', (col) => col.notNull())
      .addColumn('used_at', 'bigint')
      .execute();
    await db.schema.createIndex('password_reset_tokens_user_id').on('password_reset_tokens').column('user_id').execute();

    await db.schema
      .createTable('ingestion_keys')
      .addColumn('id', 'text', (col) => col.primaryKey())
      .addColumn('name', 'text', (col) => col.notNull())
      .addColumn('prefix', 'text', (col) => col.notNull())
      .addColumn('key_hash', 'text', (col) => col.notNull().unique())
      .addColumn('created_by', 'text', (col) => col.references('users.id').onDelete('set null'))
      .addColumn('created_at', 'bigint', (col) => col.notNull())
      .addColumn('last_used_at', 'bigint')
      .addColumn('revoked_at', 'bigint')
      .execute();

    await db.schema
      .createTable('settings')
      .addColumn('name', 'text', (col) => col.primaryKey())
      .addColumn('value', 'text', (col) => col.notNull())
      .addColumn('updated_at', 'bigint', (col) => col.notNull())
      .execute();
  },
};

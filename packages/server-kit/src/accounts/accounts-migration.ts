import type { Kysely } from 'kysely';
import type { ServiceMigration } from '../db/migrator.js';

/**
 * Frozen: creates the accounts module's tables. A service lists it among its own migrations
 * (under a name that sorts after the ones already released), followed by its own migration
 * that copies any older account tables into these.
 */
export const accountsTablesMigration: ServiceMigration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('accounts')
      .addColumn('id', 'text', (col) => col.primaryKey())
      .addColumn('email', 'text', (col) => col.notNull().unique())
      .addColumn('name', 'text', (col) => col.notNull())
      .addColumn('role', 'text', (col) => col.notNull())
      .addColumn('password_hash', 'text', (col) => col.notNull())
      .addColumn('active', 'integer', (col) => col.notNull().defaultTo(1))
      .addColumn('created_at', 'bigint', (col) => col.notNull())
      .addColumn('updated_at', 'bigint', (col) => col.notNull())
      .execute();

    // The columns the kit's session store reads and writes.
    await db.schema
      .createTable('account_sessions')
      .addColumn('id_hash', 'text', (col) => col.primaryKey())
      .addColumn('user_id', 'text', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('created_at', 'bigint', (col) => col.notNull())
      .addColumn('last_seen_at', 'bigint', (col) => col.notNull())
      .addColumn('idle_expires_at', 'bigint', (col) => col.notNull())
      .addColumn('absolute_expires_at', 'bigint', (col) => col.notNull())
      .execute();
    await db.schema.createIndex('account_sessions_user_id').on('account_sessions').column('user_id').execute();

    await db.schema
      .createTable('account_invitations')
      .addColumn('id', 'text', (col) => col.primaryKey())
      .addColumn('email', 'text', (col) => col.notNull())
      .addColumn('role', 'text', (col) => col.notNull())
      .addColumn('token_hash', 'text', (col) => col.notNull().unique())
      .addColumn('invited_by', 'text', (col) => col.references('accounts.id').onDelete('set null'))
      .addColumn('created_at', 'bigint', (col) => col.notNull())
      .addColumn('expires_at', 'bigint', (col) => col.notNull())
      .addColumn('accepted_at', 'bigint')
      .addColumn('revoked_at', 'bigint')
      .execute();
    await db.schema.createIndex('account_invitations_created_at').on('account_invitations').column('created_at').execute();

    await db.schema
      .createTable('account_password_resets')
      .addColumn('id', 'text', (col) => col.primaryKey())
      .addColumn('account_id', 'text', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('token_hash', 'text', (col) => col.notNull().unique())
      .addColumn('created_at', 'bigint', (col) => col.notNull())
      .addColumn('expires_at', 'bigint', (col) => col.notNull())
      .addColumn('used_at', 'bigint')
      .execute();
    await db.schema.createIndex('account_password_resets_account_id').on('account_password_resets').column('account_id').execute();

    // One row at most (its key is always 1): of two racing first-run setups, one inserts it.
    await db.schema
      .createTable('account_setup')
      .addColumn('id', 'integer', (col) => col.primaryKey())
      .addColumn('account_id', 'text', (col) => col.notNull())
      .addColumn('completed_at', 'bigint', (col) => col.notNull())
      .execute();
  },
};

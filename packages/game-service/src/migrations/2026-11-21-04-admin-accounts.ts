import type { ServiceMigration } from '@playstack/server-kit';

/** Operators of the admin pages: accounts, their browser sessions, and invitations. */
export const adminAccountsMigration: ServiceMigration = {
  async up(db) {
    await db.schema
      .createTable('admin_users')
      .addColumn('id', 'text', (col) => col.primaryKey())
      .addColumn('email', 'text', (col) => col.notNull().unique())
      .addColumn('name', 'text', (col) => col.notNull())
      .addColumn('password_hash', 'text', (col) => col.notNull())
      .addColumn('created_at', 'bigint', (col) => col.notNull())
      .execute();
    await db.schema
      .createTable('admin_sessions')
      .addColumn('id_hash', 'text', (col) => col.primaryKey())
      .addColumn('user_id', 'text', (col) => col.notNull().references('admin_users.id').onDelete('cascade'))
      .addColumn('created_at', 'bigint', (col) => col.notNull())
      .addColumn('last_seen_at', 'bigint', (col) => col.notNull())
      .addColumn('idle_expires_at', 'bigint', (col) => col.notNull())
      .addColumn('absolute_expires_at', 'bigint', (col) => col.notNull())
      .execute();
    await db.schema.createIndex('admin_sessions_user').on('admin_sessions').column('user_id').execute();
    await db.schema
      .createTable('admin_invitations')
      .addColumn('id', 'text', (col) => col.primaryKey())
      .addColumn('email', 'text', (col) => col.notNull())
      .addColumn('token_hash', 'text', (col) => col.notNull().unique())
      .addColumn('created_by', 'text', (col) => col.notNull())
      .addColumn('created_at', 'bigint', (col) => col.notNull())
      .addColumn('expires_at', 'bigint', (col) => col.notNull())
      .addColumn('accepted_at', 'bigint')
      .execute();
  },
};

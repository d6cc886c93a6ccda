import { sql, type Kysely } from 'kysely';
import type { ServiceMigration } from '@playstack/server-kit';

/**
 * Moves the administrators, their sessions and invitations into the server-kit accounts tables
 * (created by the migration before this one), keeping every id and hash, so every administrator
 * signs in as before and live sessions stay signed in. Every administrator is an `admin`; the
 * first to have registered holds the setup claim. The old tables go.
 */
export const accountsFromAdminUsers: ServiceMigration = {
  async up(db: Kysely<any>) {
    await sql`insert into accounts (id, email, name, role, password_hash, active, created_at, updated_at)
      select id, email, name, 'admin', password_hash, 1, created_at, created_at from admin_users`.execute(db);
    await sql`insert into account_sessions (id_hash, user_id, created_at, last_seen_at, idle_expires_at, absolute_expires_at)
      select id_hash, user_id, created_at, last_seen_at, idle_expires_at, absolute_expires_at from admin_sessions`.execute(db);
    await sql`insert into account_invitations (id, email, role, token_hash, invited_by, created_at, expires_at, accepted_at, revoked_at)
      select id, email, 'admin', token_hash, (select a.id from accounts a where a.id = admin_invitations.created_by), created_at, expires_at, accepted_at, null
      from admin_invitations`.execute(db);
    await sql`insert into account_setup (id, account_id, completed_at)
      select 1, id, created_at from accounts order by created_at, id limit 1`.execute(db);
    for (const table of ['admin_sessions', 'admin_invitations', 'admin_users']) await db.schema.dropTable(table).execute();
  },
};

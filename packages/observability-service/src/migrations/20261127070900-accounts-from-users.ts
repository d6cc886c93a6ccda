import { sql, type Kysely } from 'kysely';
import type { ServiceMigration } from '@playstack/server-kit';

/**
 * Moves the dashboard's users, their sessions, invitations and password reset tokens into the
 * server-kit accounts tables (created by the migration before this one), keeping every id and
 * hash, so every account signs in as before and live sessions stay signed in. Ingestion keys
 * then name their creator in `accounts`, and the old tables go.
 */
export const accountsFromUsers: ServiceMigration = {
  async up(db: Kysely<any>, dialect) {
    await sql`insert into accounts (id, email, name, role, password_hash, active, created_at, updated_at)
      select id, email, name, role, password_hash, active, created_at, updated_at from users`.execute(db);
    await sql`insert into account_sessions (id_hash, user_id, created_at, last_seen_at, idle_expires_at, absolute_expires_at)
      select id_hash, user_id, created_at, last_seen_at, idle_expires_at, absolute_expires_at from user_sessions`.execute(db);
    await sql`insert into account_invitations (id, email, role, token_hash, invited_by, created_at, expires_at, accepted_at, revoked_at)
      select id, email, role, token_hash, invited_by, created_at, expires_at, accepted_at, revoked_at from user_invitations`.execute(db);
    await sql`insert into account_password_resets (id, account_id, token_hash, created_at, expires_at, used_at)
      select id, user_id, token_hash, created_at, expires_at, used_at from password_reset_tokens`.execute(db);
    // Setup was claimed by a settings row naming the first admin; the claim moves with the accounts.
    await sql`insert into account_setup (id, account_id, completed_at)
      select 1, value, updated_at from settings where name = 'setup-completed'`.execute(db);
    await sql`delete from settings where name = 'setup-completed'`.execute(db);

    await repointIngestionKeyCreators(db, dialect);
    for (const table of ['user_sessions', 'user_invitations', 'password_reset_tokens', 'users']) await db.schema.dropTable(table).execute();
  },
};

/** `ingestion_keys.created_by` referenced `users`; it references `accounts` from now on. */
async function repointIngestionKeyCreators(db: Kysely<any>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  if (dialect === 'postgres') {
    await sql`alter table ingestion_keys drop constraint ingestion_keys_created_by_fkey`.execute(db);
    await sql`alter table ingestion_keys add constraint ingestion_keys_created_by_fkey foreign key (created_by) references accounts (id) on delete set null`.execute(db);
    return;
  }
  // SQLite cannot change a constraint: the table is rebuilt (the way its manual describes).
  await db.schema
    .createTable('ingestion_keys_new')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('prefix', 'text', (col) => col.notNull())
    .addColumn('key_hash', 'text', (col) => col.notNull().unique())
    .addColumn('created_by', 'text', (col) => col.references('accounts.id').onDelete('set null'))
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('last_used_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .execute();
  await sql`insert into ingestion_keys_new (id, name, prefix, key_hash, created_by, created_at, last_used_at, revoked_at)
    select id, name, prefix, key_hash, created_by, created_at, last_used_at, revoked_at from ingestion_keys`.execute(db);
  await db.schema.dropTable('ingestion_keys').execute();
  await db.schema.alterTable('ingestion_keys_new').renameTo('ingestion_keys').execute();
}

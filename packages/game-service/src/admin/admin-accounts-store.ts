import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';

interface AdminUsersTable {
  id: string;
  email: string;
  name: string;
  password_hash: string;
  created_at: number;
}

interface AdminInvitationsTable {
  id: string;
  email: string;
  token_hash: string;
  created_by: string;
  created_at: number;
  expires_at: number;
  accepted_at: number | null;
}

interface AdminTables {
  admin_users: AdminUsersTable;
  admin_invitations: AdminInvitationsTable;
}

type Db = Kysely<AdminTables>;

export interface AdminUser {
  id: string;
  email: string;
  name: string;
  passwordHash: string;
}

function asDb(db: Kysely<any>): Db {
  return db as Db;
}

export async function countAdmins(db: Kysely<any>): Promise<number> {
  const row = await asDb(db).selectFrom('admin_users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function findAdminByEmail(db: Kysely<any>, email: string): Promise<AdminUser | undefined> {
  const row = await asDb(db).selectFrom('admin_users').selectAll().where('email', '=', email).executeTakeFirst();
  return row && { id: row.id, email: row.email, name: row.name, passwordHash: row.password_hash };
}

export async function findAdminById(db: Kysely<any>, id: string): Promise<AdminUser | undefined> {
  const row = await asDb(db).selectFrom('admin_users').selectAll().where('id', '=', id).executeTakeFirst();
  return row && { id: row.id, email: row.email, name: row.name, passwordHash: row.password_hash };
}

/** Inserts an administrator; undefined when the email is taken. */
export async function insertAdmin(
  db: Kysely<any>,
  admin: { email: string; name: string; passwordHash: string },
  now: number,
): Promise<string | undefined> {
  const id = randomUUID();
  const inserted = await asDb(db)
    .insertInto('admin_users')
    .values({ id, email: admin.email, name: admin.name, password_hash: admin.passwordHash, created_at: now })
    .onConflict((oc) => oc.column('email').doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0 ? id : undefined;
}

export async function insertInvitation(
  db: Kysely<any>,
  invitation: { email: string; tokenHash: string; createdBy: string; expiresAt: number },
  now: number,
): Promise<string> {
  const id = randomUUID();
  await asDb(db)
    .insertInto('admin_invitations')
    .values({
      id,
      email: invitation.email,
      token_hash: invitation.tokenHash,
      created_by: invitation.createdBy,
      created_at: now,
      expires_at: invitation.expiresAt,
      accepted_at: null,
    })
    .execute();
  return id;
}

/**
 * Spends an invitation: marks it accepted if it is unexpired and unused. Returns its email, or
 * undefined when the token is unknown, expired or already used. Single use even under races.
 */
export async function spendInvitation(db: Kysely<any>, tokenHash: string, now: number): Promise<{ email: string } | undefined> {
  const row = await asDb(db)
    .selectFrom('admin_invitations')
    .select(['id', 'email'])
    .where('token_hash', '=', tokenHash)
    .where('accepted_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  if (!row) return undefined;
  const updated = await asDb(db)
    .updateTable('admin_invitations')
    .set({ accepted_at: now })
    .where('id', '=', row.id)
    .where('accepted_at', 'is', null)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1 ? { email: row.email } : undefined;
}

export interface InvitationSummary {
  id: string;
  email: string;
  createdAt: number;
  expiresAt: number;
  acceptedAt: number | null;
}

export async function listInvitations(db: Kysely<any>, limit: number): Promise<InvitationSummary[]> {
  const rows = await asDb(db)
    .selectFrom('admin_invitations')
    .select(['id', 'email', 'created_at', 'expires_at', 'accepted_at'])
    .orderBy('created_at', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ id: r.id, email: r.email, createdAt: r.created_at, expiresAt: r.expires_at, acceptedAt: r.accepted_at }));
}

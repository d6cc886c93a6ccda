import type { Kysely } from 'kysely';
import type { Role } from './users-store.js';

/** A row of `user_invitations`: the token is stored only as its hash. */
export interface InvitationRow {
  id: string;
  email: string;
  role: Role;
  token_hash: string;
  invited_by: string | null;
  created_at: number;
  expires_at: number;
  accepted_at: number | null;
  revoked_at: number | null;
}

export interface InvitationsTables {
  user_invitations: InvitationRow;
}

// Stores accept any database handle (services compose several features' tables); queries stay typed.
const typed = (db: Kysely<any>) => db as Kysely<InvitationsTables>;

export async function insertInvitation(db: Kysely<any>, row: InvitationRow): Promise<void> {
  await typed(db).insertInto('user_invitations').values(row).execute();
}

export async function listInvitations(db: Kysely<any>): Promise<InvitationRow[]> {
  return typed(db).selectFrom('user_invitations').selectAll().orderBy('created_at', 'desc').orderBy('id').execute();
}

export async function findInvitationByTokenHash(db: Kysely<any>, tokenHash: string): Promise<InvitationRow | undefined> {
  return typed(db).selectFrom('user_invitations').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/** Revokes a pending invitation; false when there is none with this id. */
export async function revokeInvitation(db: Kysely<any>, id: string, now: number): Promise<boolean> {
  const result = await typed(db)
    .updateTable('user_invitations')
    .set({ revoked_at: now })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .where('accepted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Spends a pending, unexpired invitation. The conditions sit in the UPDATE itself, so of two
 * concurrent acceptances exactly one wins.
 */
export async function spendInvitation(db: Kysely<any>, id: string, now: number): Promise<boolean> {
  const result = await typed(db)
    .updateTable('user_invitations')
    .set({ accepted_at: now })
    .where('id', '=', id)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { ApiError, hashOpaqueToken, newOpaqueToken } from '@playstack/server-kit';
import { insertInvitation, listInvitations, revokeInvitation, type InvitationRow } from './invitations-store.js';
import { normalizeEmail } from './user.js';
import { findUserByEmail, type Role } from './users-store.js';

export type InvitationStatus = 'pending' | 'accepted' | 'revoked' | 'expired';

/** An invitation as the admin list shows it (never the token). */
export interface InvitationSummary {
  id: string;
  email: string;
  role: Role;
  status: InvitationStatus;
  createdAt: number;
  expiresAt: number;
}

function statusOf(row: InvitationRow, now: number): InvitationStatus {
  if (row.accepted_at !== null) return 'accepted';
  if (row.revoked_at !== null) return 'revoked';
  return row.expires_at <= now ? 'expired' : 'pending';
}

function summarize(row: InvitationRow, now: number): InvitationSummary {
  return { id: row.id, email: row.email, role: row.role, status: statusOf(row, now), createdAt: row.created_at, expiresAt: row.expires_at };
}

/** Invites an email with a role; the returned token is shown this once, for the admin to pass on. */
export async function createInvitation(
  db: Kysely<any>,
  input: { email: string; role: Role; invitedBy: string; now: number; ttlMs: number },
): Promise<InvitationSummary & { token: string }> {
  const email = normalizeEmail(input.email);
  if (await findUserByEmail(db, email)) throw new ApiError('conflict', `${email} has an account already.`);
  const token = newOpaqueToken();
  const row: InvitationRow = {
    id: randomUUID(),
    email,
    role: input.role,
    token_hash: hashOpaqueToken(token),
    invited_by: input.invitedBy,
    created_at: input.now,
    expires_at: input.now + input.ttlMs,
    accepted_at: null,
    revoked_at: null,
  };
  await insertInvitation(db, row);
  return { ...summarize(row, input.now), token };
}

export async function invitationSummaries(db: Kysely<any>, now: number): Promise<InvitationSummary[]> {
  return (await listInvitations(db)).map((row) => summarize(row, now));
}

/** Revokes a pending invitation; 404 when there is no pending invitation with this id. */
export async function revokeInvitationById(db: Kysely<any>, id: string, now: number): Promise<void> {
  if (!(await revokeInvitation(db, id, now))) throw new ApiError('not-found', `No pending invitation with id ${id}.`);
}

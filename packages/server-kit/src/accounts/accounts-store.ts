import type { Kysely } from 'kysely';
import type { AccountRow, AccountsTables, InvitationRow, PasswordResetRow } from './account-tables.js';
import { tableView } from '../db/table-view.js';

/** The accounts tables of a service's database (whatever else it holds). */
export type AccountsDb = Kysely<AccountsTables>;

/** A service's database (any that has the accounts tables) as the accounts module's. */
export const accountsDb = tableView<AccountsTables>();

export async function countAccounts(db: AccountsDb): Promise<number> {
  const row = await db.selectFrom('accounts').select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function countActiveAdmins(db: AccountsDb): Promise<number> {
  const row = await db
    .selectFrom('accounts')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('role', '=', 'admin')
    .where('active', '=', 1)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function insertAccount(db: AccountsDb, row: AccountRow): Promise<void> {
  await db.insertInto('accounts').values(row).execute();
}

export async function findAccountById(db: AccountsDb, id: string): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Emails are stored normalized (trimmed, lower case); pass a normalized one. */
export async function findAccountByEmail(db: AccountsDb, email: string): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('email', '=', email).executeTakeFirst();
}

export async function listAccounts(db: AccountsDb): Promise<AccountRow[]> {
  return db.selectFrom('accounts').selectAll().orderBy('created_at').orderBy('email').execute();
}

export async function updateAccount(
  db: AccountsDb,
  id: string,
  changes: Partial<Pick<AccountRow, 'role' | 'active' | 'password_hash' | 'name'>>,
  now: number,
): Promise<void> {
  await db
    .updateTable('accounts')
    .set({ ...changes, updated_at: now })
    .where('id', '=', id)
    .execute();
}

/** Claims the first-run setup for an account; true when this call claimed it (once per database). */
export async function claimSetup(db: AccountsDb, accountId: string, now: number): Promise<boolean> {
  const result = await db
    .insertInto('account_setup')
    .values({ id: 1, account_id: accountId, completed_at: now })
    .onConflict((oc) => oc.column('id').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

export async function insertInvitation(db: AccountsDb, row: InvitationRow): Promise<void> {
  await db.insertInto('account_invitations').values(row).execute();
}

/** Invitations, newest first; at most `limit` when given. */
export async function listInvitations(db: AccountsDb, limit?: number): Promise<InvitationRow[]> {
  const query = db.selectFrom('account_invitations').selectAll().orderBy('created_at', 'desc').orderBy('id');
  return (limit === undefined ? query : query.limit(limit)).execute();
}

export async function findInvitationByTokenHash(db: AccountsDb, tokenHash: string): Promise<InvitationRow | undefined> {
  return db.selectFrom('account_invitations').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/** Revokes a pending invitation; false when there is none with this id. */
export async function revokeInvitation(db: AccountsDb, id: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('account_invitations')
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
export async function spendInvitation(db: AccountsDb, id: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('account_invitations')
    .set({ accepted_at: now })
    .where('id', '=', id)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function insertPasswordReset(db: AccountsDb, row: PasswordResetRow): Promise<void> {
  await db.insertInto('account_password_resets').values(row).execute();
}

export async function findPasswordResetByTokenHash(db: AccountsDb, tokenHash: string): Promise<PasswordResetRow | undefined> {
  return db.selectFrom('account_password_resets').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/** Spends an unused, unexpired reset token; of two concurrent uses exactly one wins. */
export async function spendPasswordReset(db: AccountsDb, id: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('account_password_resets')
    .set({ used_at: now })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Spends every other outstanding reset token of an account, once its password has been reset. */
export async function spendAllPasswordResets(db: AccountsDb, accountId: string, now: number): Promise<void> {
  await db.updateTable('account_password_resets').set({ used_at: now }).where('account_id', '=', accountId).where('used_at', 'is', null).execute();
}

/** Deletes reset tokens that expired before `before` (used or not: neither can do anything any more). */
export async function deleteExpiredPasswordResets(db: AccountsDb, before: number): Promise<number> {
  const result = await db.deleteFrom('account_password_resets').where('expires_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

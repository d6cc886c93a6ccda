import type { Kysely } from 'kysely';

/** A row of `password_reset_tokens`: the token is stored only as its hash. */
export interface PasswordResetRow {
  id: string;
  user_id: string;
  token_hash: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface PasswordResetTables {
  password_reset_tokens: PasswordResetRow;
}

// Stores accept any database handle (services compose several features' tables); queries stay typed.
const typed = (db: Kysely<any>) => db as Kysely<PasswordResetTables>;

export async function insertPasswordReset(db: Kysely<any>, row: PasswordResetRow): Promise<void> {
  await typed(db).insertInto('password_reset_tokens').values(row).execute();
}

export async function findPasswordResetByTokenHash(db: Kysely<any>, tokenHash: string): Promise<PasswordResetRow | undefined> {
  return typed(db).selectFrom('password_reset_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/** Spends an unused, unexpired token; of two concurrent uses exactly one wins. */
export async function spendPasswordReset(db: Kysely<any>, id: string, now: number): Promise<boolean> {
  const result = await typed(db)
    .updateTable('password_reset_tokens')
    .set({ used_at: now })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Spends every other outstanding token of a user, once their password has been reset. */
export async function spendAllPasswordResets(db: Kysely<any>, userId: string, now: number): Promise<void> {
  await typed(db).updateTable('password_reset_tokens').set({ used_at: now }).where('user_id', '=', userId).where('used_at', 'is', null).execute();
}

/** Deletes tokens that expired before `before` (used or not: neither can do anything any more). */
export async function deleteExpiredPasswordResets(db: Kysely<any>, before: number): Promise<number> {
  const result = await typed(db).deleteFrom('password_reset_tokens').where('expires_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

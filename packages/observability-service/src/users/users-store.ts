import type { Kysely } from 'kysely';

export type Role = 'admin' | 'member';

/** A row of `users`. */
export interface UserRow {
  id: string;
  email: string;
  name: string;
  role: Role;
  password_hash: string;
  active: number;
  created_at: number;
  updated_at: number;
}

export interface UsersTables {
  users: UserRow;
}

// Stores accept any database handle (services compose several features' tables); queries stay typed.
const typed = (db: Kysely<any>) => db as Kysely<UsersTables>;

export async function insertUser(db: Kysely<any>, row: UserRow): Promise<void> {
  await typed(db).insertInto('users').values(row).execute();
}

export async function countUsers(db: Kysely<any>): Promise<number> {
  const row = await typed(db).selectFrom('users').select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function findUserById(db: Kysely<any>, id: string): Promise<UserRow | undefined> {
  return typed(db).selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Emails are stored normalized (trimmed, lower case); pass a normalized one. */
export async function findUserByEmail(db: Kysely<any>, email: string): Promise<UserRow | undefined> {
  return typed(db).selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
}

export async function listUsers(db: Kysely<any>): Promise<UserRow[]> {
  return typed(db).selectFrom('users').selectAll().orderBy('created_at').orderBy('email').execute();
}

export async function updateUser(
  db: Kysely<any>,
  id: string,
  changes: Partial<Pick<UserRow, 'role' | 'active' | 'password_hash' | 'name'>>,
  now: number,
): Promise<void> {
  await typed(db)
    .updateTable('users')
    .set({ ...changes, updated_at: now })
    .where('id', '=', id)
    .execute();
}

export async function countActiveAdmins(db: Kysely<any>): Promise<number> {
  const row = await typed(db)
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('role', '=', 'admin')
    .where('active', '=', 1)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

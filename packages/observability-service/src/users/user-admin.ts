import type { Kysely } from 'kysely';
import { ApiError, type SessionManager } from '@playstack/server-kit';
import { publicUser, type PublicUser } from './user.js';
import { countActiveAdmins, findUserById, listUsers, updateUser, type Role } from './users-store.js';

/** A user as the admin list shows them. */
export interface ManagedUser extends PublicUser {
  active: boolean;
  createdAt: number;
}

export async function managedUsers(db: Kysely<any>): Promise<ManagedUser[]> {
  return (await listUsers(db)).map((row) => ({ ...publicUser(row), active: row.active === 1, createdAt: row.created_at }));
}

/**
 * Changes a user's role or active state. Deactivation ends their sessions at once. The last
 * active admin can be neither demoted nor deactivated: nobody could administer the service.
 */
export async function changeUser(
  db: Kysely<any>,
  sessions: SessionManager,
  id: string,
  changes: { role?: Role; active?: boolean },
  now: number,
): Promise<ManagedUser> {
  const user = await findUserById(db, id);
  if (!user) throw new ApiError('not-found', `No user with id ${id}.`);
  const losesAdmin = user.role === 'admin' && user.active === 1 && (changes.role === 'member' || changes.active === false);
  if (losesAdmin && (await countActiveAdmins(db)) <= 1) {
    throw new ApiError('conflict', 'This is the last active admin; make another user admin first.');
  }
  const update: { role?: Role; active?: number } = {};
  if (changes.role !== undefined) update.role = changes.role;
  if (changes.active !== undefined) update.active = changes.active ? 1 : 0;
  await updateUser(db, id, update, now);
  if (changes.active === false) await sessions.endAllForUser(id);
  const updated = await findUserById(db, id);
  if (!updated) throw new ApiError('not-found', `No user with id ${id}.`);
  return { ...publicUser(updated), active: updated.active === 1, createdAt: updated.created_at };
}

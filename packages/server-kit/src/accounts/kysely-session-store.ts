import type { SessionRecord, SessionStore } from '../auth/session-manager.js';
import type { SessionRow } from './account-tables.js';
import type { AccountsDb } from './accounts-store.js';

function fromRow(row: SessionRow): SessionRecord {
  return {
    idHash: row.id_hash,
    userId: row.user_id,
    createdAt: row.created_at,
    lastSeenAt: row.last_seen_at,
    idleExpiresAt: row.idle_expires_at,
    absoluteExpiresAt: row.absolute_expires_at,
  };
}

/** The accounts' sessions, in `account_sessions`. */
export class KyselySessionStore implements SessionStore {
  readonly #db: AccountsDb;

  constructor(db: AccountsDb) {
    this.#db = db;
  }

  async insert(session: SessionRecord): Promise<void> {
    await this.#db
      .insertInto('account_sessions')
      .values({
        id_hash: session.idHash,
        user_id: session.userId,
        created_at: session.createdAt,
        last_seen_at: session.lastSeenAt,
        idle_expires_at: session.idleExpiresAt,
        absolute_expires_at: session.absoluteExpiresAt,
      })
      .execute();
  }

  async find(idHash: string): Promise<SessionRecord | undefined> {
    const row = await this.#db.selectFrom('account_sessions').selectAll().where('id_hash', '=', idHash).executeTakeFirst();
    return row ? fromRow(row) : undefined;
  }

  async touch(idHash: string, lastSeenAt: number, idleExpiresAt: number): Promise<void> {
    await this.#db
      .updateTable('account_sessions')
      .set({ last_seen_at: lastSeenAt, idle_expires_at: idleExpiresAt })
      .where('id_hash', '=', idHash)
      .execute();
  }

  async delete(idHash: string): Promise<void> {
    await this.#db.deleteFrom('account_sessions').where('id_hash', '=', idHash).execute();
  }

  async deleteForUser(userId: string, keepIdHash?: string): Promise<number> {
    let query = this.#db.deleteFrom('account_sessions').where('user_id', '=', userId);
    if (keepIdHash !== undefined) query = query.where('id_hash', '!=', keepIdHash);
    const result = await query.executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async deleteExpired(now: number): Promise<number> {
    const result = await this.#db
      .deleteFrom('account_sessions')
      .where((eb) => eb.or([eb('idle_expires_at', '<=', now), eb('absolute_expires_at', '<=', now)]))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

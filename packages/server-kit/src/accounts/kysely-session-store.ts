import type { Kysely } from 'kysely';
import type { SessionRecord, SessionStore } from '../auth/session-manager.js';

/**
 * The columns a session table must have; a service creates the table in its own migration:
 * `id_hash text primary key, user_id text not null, created_at bigint, last_seen_at bigint,
 * idle_expires_at bigint, absolute_expires_at bigint` (all not null), indexed on `user_id`.
 */
export interface SessionRow {
  id_hash: string;
  user_id: string;
  created_at: number;
  last_seen_at: number;
  idle_expires_at: number;
  absolute_expires_at: number;
}

type SessionTables = Record<string, SessionRow>;

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

/** Sessions in a table of the service's choosing (e.g. `user_sessions`, `admin_sessions`). */
export class KyselySessionStore implements SessionStore {
  readonly #db: Kysely<SessionTables>;
  readonly #table: string;

  constructor(db: Kysely<any>, table: string) {
    this.#db = db as Kysely<SessionTables>;
    this.#table = table;
  }

  async insert(session: SessionRecord): Promise<void> {
    await this.#db
      .insertInto(this.#table)
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
    const row = await this.#db.selectFrom(this.#table).selectAll().where('id_hash', '=', idHash).executeTakeFirst();
    return row ? fromRow(row as SessionRow) : undefined;
  }

  async touch(idHash: string, lastSeenAt: number, idleExpiresAt: number): Promise<void> {
    await this.#db
      .updateTable(this.#table)
      .set({ last_seen_at: lastSeenAt, idle_expires_at: idleExpiresAt })
      .where('id_hash', '=', idHash)
      .execute();
  }

  async delete(idHash: string): Promise<void> {
    await this.#db.deleteFrom(this.#table).where('id_hash', '=', idHash).execute();
  }

  async deleteForUser(userId: string, keepIdHash?: string): Promise<number> {
    let query = this.#db.deleteFrom(this.#table).where('user_id', '=', userId);
    if (keepIdHash !== undefined) query = query.where('id_hash', '!=', keepIdHash);
    const result = await query.executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async deleteExpired(now: number): Promise<number> {
    const result = await this.#db
      .deleteFrom(this.#table)
      .where((eb) => eb.or([eb('idle_expires_at', '<=', now), eb('absolute_expires_at', '<=', now)]))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

import type { GameDb } from '../database.js';

/** The actions operators take on a player; `unhide` is also taken by the service when a hiding ends. */
export type ModerationAction = 'hide' | 'unhide' | 'remove-entry' | 'revoke-sessions' | 'erase' | 'review-run';

/** One operator action: who, what, on whom, when, why, and what it changed. */
export interface AuditEntry {
  readonly id: number;
  readonly gameId: string;
  readonly playerId: string;
  /** The operator's email, or `system` (a hiding that ended by itself). */
  readonly actor: string;
  readonly action: ModerationAction;
  readonly reason: string;
  readonly before: unknown;
  readonly after: unknown;
  /** Epoch milliseconds. */
  readonly at: number;
}

export type NewAuditEntry = Omit<AuditEntry, 'id'>;

type Row = { id: number; game_id: string; player_id: string; actor: string; action: string; reason: string; before: string | null; after: string | null; created_at: number };

function toAuditEntry(row: Row): AuditEntry {
  return {
    id: Number(row.id),
    gameId: row.game_id,
    playerId: row.player_id,
    actor: row.actor,
    action: row.action as ModerationAction,
    reason: row.reason,
    before: row.before === null ? null : (JSON.parse(row.before) as unknown),
    after: row.after === null ? null : (JSON.parse(row.after) as unknown),
    at: Number(row.created_at),
  };
}

/** Records an action (inside the action's own transaction where it has one). */
export async function insertAuditEntry(db: GameDb, entry: NewAuditEntry): Promise<AuditEntry> {
  const row = await db
    .insertInto('moderation_audit')
    .values({
      game_id: entry.gameId,
      player_id: entry.playerId,
      actor: entry.actor,
      action: entry.action,
      reason: entry.reason,
      before: entry.before === undefined || entry.before === null ? null : JSON.stringify(entry.before),
      after: entry.after === undefined || entry.after === null ? null : JSON.stringify(entry.after),
      created_at: entry.at,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toAuditEntry(row);
}

export interface AuditFilter {
  gameId?: string | undefined;
  playerId?: string | undefined;
  /** Keyset cursor: only entries older (smaller id) than this. */
  beforeId?: number | undefined;
  limit: number;
}

/** Audit entries, newest first, and the cursor of the next page (null on the last). */
export async function listAuditEntries(db: GameDb, filter: AuditFilter): Promise<{ entries: AuditEntry[]; nextBeforeId: number | null }> {
  let query = db.selectFrom('moderation_audit').selectAll();
  if (filter.gameId !== undefined) query = query.where('game_id', '=', filter.gameId);
  if (filter.playerId !== undefined) query = query.where('player_id', '=', filter.playerId);
  if (filter.beforeId !== undefined) query = query.where('id', '<', filter.beforeId);
  const rows = await query.orderBy('id', 'desc').limit(filter.limit + 1).execute();
  const entries = rows.slice(0, filter.limit).map(toAuditEntry);
  return { entries, nextBeforeId: rows.length > filter.limit ? entries.at(-1)!.id : null };
}

import type { GameDb } from '../database.js';

/** A sign-in (refresh family) of a player, as operators see it. */
export interface PlayerSession {
  readonly id: string;
  readonly createdAt: number;
  /** When its refresh token last rotated (the player was last active then or after). */
  readonly rotatedAt: number;
  readonly revokedAt: number | null;
  readonly revokedReason: string | null;
}

/** A player's sign-ins, newest first, at most `limit`. */
export async function sessionsOfPlayer(db: GameDb, gameId: string, playerId: string, limit: number): Promise<PlayerSession[]> {
  const rows = await db
    .selectFrom('session_families')
    .select(['id', 'created_at', 'rotated_at', 'revoked_at', 'revoked_reason'])
    .where('game_id', '=', gameId)
    .where('player_id', '=', playerId)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    id: row.id,
    createdAt: Number(row.created_at),
    rotatedAt: Number(row.rotated_at),
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
    revokedReason: row.revoked_reason,
  }));
}

/** Revokes every live sign-in of a player (reason `operator`); the ids of those that were live. */
export async function revokeSessionsOfPlayer(db: GameDb, gameId: string, playerId: string, now: number): Promise<string[]> {
  const rows = await db
    .updateTable('session_families')
    .set({ revoked_at: now, revoked_reason: 'operator' })
    .where('game_id', '=', gameId)
    .where('player_id', '=', playerId)
    .where('revoked_at', 'is', null)
    .returning('id')
    .execute();
  return rows.map((row) => row.id);
}

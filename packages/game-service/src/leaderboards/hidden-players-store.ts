import type { GameDb } from '../database.js';

/** A player an operator hid from every board of a game. */
export interface HiddenPlayer {
  readonly gameId: string;
  readonly playerId: string;
  /** The player still sees their own entry and rank; nobody else does. */
  readonly shadow: boolean;
  readonly hiddenAt: number;
  /** When the hiding ends by itself (epoch ms); null until unhidden. */
  readonly hiddenUntil: number | null;
}

type Row = { game_id: string; player_id: string; shadow: number; hidden_at: number; hidden_until: number | null };

function toHiddenPlayer(row: Row): HiddenPlayer {
  return {
    gameId: row.game_id,
    playerId: row.player_id,
    shadow: Number(row.shadow) === 1,
    hiddenAt: Number(row.hidden_at),
    hiddenUntil: row.hidden_until === null ? null : Number(row.hidden_until),
  };
}

/** The player's hiding, or undefined when they are visible. */
export async function findHiddenPlayer(db: GameDb, gameId: string, playerId: string): Promise<HiddenPlayer | undefined> {
  const row = await db.selectFrom('leaderboard_hidden_players').selectAll().where('game_id', '=', gameId).where('player_id', '=', playerId).executeTakeFirst();
  return row && toHiddenPlayer(row);
}

/** Records a hiding, replacing an earlier one of the same player (a new option or end time). */
export async function saveHiddenPlayer(db: GameDb, hidden: HiddenPlayer): Promise<void> {
  const values = { shadow: hidden.shadow ? 1 : 0, hidden_at: hidden.hiddenAt, hidden_until: hidden.hiddenUntil };
  await db
    .insertInto('leaderboard_hidden_players')
    .values({ game_id: hidden.gameId, player_id: hidden.playerId, ...values })
    .onConflict((oc) => oc.columns(['game_id', 'player_id']).doUpdateSet(values))
    .execute();
}

/** Ends a hiding; true when there was one. */
export async function deleteHiddenPlayer(db: GameDb, gameId: string, playerId: string): Promise<boolean> {
  const result = await db.deleteFrom('leaderboard_hidden_players').where('game_id', '=', gameId).where('player_id', '=', playerId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Hidings whose end time has come, oldest first, at most `limit`. */
export async function expiredHiddenPlayers(db: GameDb, now: number, limit: number): Promise<HiddenPlayer[]> {
  const rows = await db
    .selectFrom('leaderboard_hidden_players')
    .selectAll()
    .where('hidden_until', 'is not', null)
    .where('hidden_until', '<=', now)
    .orderBy('hidden_until')
    .limit(limit)
    .execute();
  return rows.map(toHiddenPlayer);
}

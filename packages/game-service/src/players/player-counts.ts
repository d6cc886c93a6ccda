import type { ManifestPart } from '../manifest/manifest-changes.js';
import type { GameDb } from '../database.js';

/** How many players each game has, for operators' overviews. */
export async function countPlayersByGame(db: GameDb): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('players')
    .select(['game_id', (eb) => eb.fn.countAll<number>().as('count')])
    .groupBy('game_id')
    .execute();
  return new Map(rows.map((row) => [row.game_id, Number(row.count)]));
}

/** Players of a game the manifest would drop (players belong to games only: 0 for other parts). */
export async function countPlayersOfPart(db: GameDb, part: ManifestPart): Promise<number> {
  if (part.kind !== 'game') return 0;
  const row = await db.selectFrom('players').select((eb) => eb.fn.countAll<number>().as('count')).where('game_id', '=', part.gameId).executeTakeFirst();
  return Number(row?.count ?? 0);
}

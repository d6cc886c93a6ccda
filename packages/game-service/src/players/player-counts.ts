import type { Kysely } from 'kysely';
import type { PlayerTables } from './player-store.js';

/** How many players each game has, for operators' overviews. */
export async function countPlayersByGame(anyDb: Kysely<any>): Promise<Map<string, number>> {
  const db = anyDb as Kysely<PlayerTables>;
  const rows = await db
    .selectFrom('players')
    .select(['game_id', (eb) => eb.fn.countAll<number>().as('count')])
    .groupBy('game_id')
    .execute();
  return new Map(rows.map((row) => [row.game_id, Number(row.count)]));
}

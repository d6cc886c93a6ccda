import type { ManifestPart } from '../manifest/manifest-changes.js';
import { emptyRunCounts, type RunStatus } from './run-record.js';
import type { GameDb } from '../database.js';

/** Per game: runs by status, and how many arrived since a moment (e.g. the start of today, UTC). */
export interface GameRunCounts {
  byStatus: Record<RunStatus, number>;
  since: number;
}

/** Run counts of every game, for operators' overviews, in one grouped query. */
export async function countRunsByGame(db: GameDb, sinceMs: number): Promise<Map<string, GameRunCounts>> {
  const rows = await db
    .selectFrom('runs')
    .select((eb) => [
      'game_id',
      'status',
      eb.fn.countAll<number>().as('count'),
      eb.fn.sum<number>(eb.case().when('created_at', '>=', sinceMs).then(1).else(0).end()).as('since'),
    ])
    .groupBy(['game_id', 'status'])
    .execute();
  const counts = new Map<string, GameRunCounts>();
  for (const row of rows) {
    const game = counts.get(row.game_id) ?? { byStatus: emptyRunCounts(), since: 0 };
    game.byStatus[row.status] = Number(row.count);
    game.since += Number(row.since ?? 0);
    counts.set(row.game_id, game);
  }
  return counts;
}

/** Runs of a game or adapter the manifest would drop (0 for boards: runs belong to adapters). */
export async function countRunsOfPart(db: GameDb, part: ManifestPart): Promise<number> {
  if (part.kind === 'board') return 0;
  let query = db.selectFrom('runs').select((eb) => eb.fn.countAll<number>().as('count')).where('game_id', '=', part.gameId);
  if (part.kind === 'adapter') query = query.where('adapter_id', '=', part.adapterId);
  return Number((await query.executeTakeFirst())?.count ?? 0);
}

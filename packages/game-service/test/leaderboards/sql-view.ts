import type { App } from '@playstack/server-kit';
import { entriesAfter } from '../../src/leaderboards/leaderboard-store.js';
import { currentPeriodsOf } from '../../src/leaderboards/periods.js';
import type { GameDefinition } from '../../src/manifest/manifest-schema.js';

/** An entry as the API shows it, reduced to what rank and SQL agree on. */
export interface ShownEntry {
  rank: number;
  playerId: string;
  displayName: string;
  score: number;
}

/** Every current (board, period) of a game: the sets the rank engine holds. */
export function currentSets(app: App, game: GameDefinition): Array<{ boardId: string; period: string; order: 'asc' | 'desc' }> {
  return game.boards.flatMap((board) => currentPeriodsOf(board, app.clock.now()).map(({ key }) => ({ boardId: board.id, period: key, order: board.order })));
}

/** What SQL says a set holds, in rank order, with ranks: read straight from the table. */
export async function sqlRanking(app: App, gameId: string, set: { boardId: string; period: string; order: 'asc' | 'desc' }): Promise<ShownEntry[]> {
  const rows = await entriesAfter(app.database.db, { gameId, ...set }, undefined, 10_000);
  return rows.map((row, i) => ({ rank: i + 1, playerId: row.playerId, displayName: row.displayName, score: row.score }));
}

function shown(entries: Array<ShownEntry & Record<string, unknown>>): ShownEntry[] {
  return entries.map(({ rank, playerId, displayName, score }) => ({ rank, playerId, displayName, score }));
}

/** A call the comparison made that disagreed with SQL. */
export interface Difference {
  url: string;
  status: number;
  expected: unknown;
  actual: unknown;
}

/**
 * Compares every page, `/me` and `/around-me` (radius 2) of every current set of a game, for
 * each of `players`, with what SQL says; answers the calls that disagree (none when in step).
 */
export async function differencesFromSql(
  app: App,
  game: GameDefinition,
  players: ReadonlyArray<{ id: string; headers: Record<string, string> }>,
): Promise<Difference[]> {
  const differences: Difference[] = [];
  const reader = players[0]!;
  for (const set of currentSets(app, game)) {
    const expected = await sqlRanking(app, game.id, set);
    const base = `/v1/games/${game.id}/leaderboards/${set.boardId}`;
    const query = `period=${encodeURIComponent(set.period)}`;
    // Pages of 7 so cursors are followed across several pages.
    const paged: ShownEntry[] = [];
    let cursor: string | null = null;
    do {
      const url: string = `${base}?${query}&limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const response = await app.inject({ method: 'GET', url, headers: reader.headers });
      if (response.statusCode !== 200) {
        differences.push({ url, status: response.statusCode, expected: 200, actual: response.body });
        break;
      }
      const body = response.json();
      paged.push(...shown(body.entries));
      cursor = body.nextCursor;
    } while (cursor);
    if (JSON.stringify(paged) !== JSON.stringify(expected)) differences.push({ url: `${base}?${query} (all pages)`, status: 200, expected, actual: paged });

    for (const player of players) {
      const own = expected.findIndex((e) => e.playerId === player.id);
      const meUrl = `${base}/me?${query}`;
      const me = await app.inject({ method: 'GET', url: meUrl, headers: player.headers });
      const meExpected = { total: expected.length, entry: own < 0 ? null : expected[own] };
      const meBody = me.statusCode === 200 ? me.json() : me.body;
      const meActual = me.statusCode === 200 ? { total: meBody.total, entry: meBody.entry && shown([meBody.entry])[0] } : meBody;
      if (JSON.stringify(meActual) !== JSON.stringify(meExpected)) differences.push({ url: `${meUrl} as ${player.id}`, status: me.statusCode, expected: meExpected, actual: meActual });

      const aroundUrl = `${base}/around-me?${query}&radius=2`;
      const around = await app.inject({ method: 'GET', url: aroundUrl, headers: player.headers });
      const aroundExpected = { total: expected.length, entries: own < 0 ? [] : expected.slice(Math.max(0, own - 2), own + 3) };
      const aroundActual = around.statusCode === 200 ? { total: around.json().total, entries: shown(around.json().entries) } : around.body;
      if (JSON.stringify(aroundActual) !== JSON.stringify(aroundExpected)) differences.push({ url: `${aroundUrl} as ${player.id}`, status: around.statusCode, expected: aroundExpected, actual: aroundActual });
    }
  }
  return differences;
}

import { expect } from 'vitest';
import type { App } from '@playstack/server-kit';
import type { GameApp } from '../../src/database.js';
import type { GameDefinition } from '../../src/manifest/manifest-schema.js';
import type { BoardStanding } from '../../src/leaderboards/leaderboard-service.js';
import { bearer, devSignIn } from '../support/identity-fixtures.js';

/** A game with one board per operator and order, fed by the bounded-score adapter. */
export function arenaGame(id: string): GameDefinition {
  const source = { adapter: 'score', value: 'score' };
  return {
    id,
    name: `Arena ${id}`,
    auth: { provider: 'dev' },
    adapters: { score: { type: 'bounded-score', options: {} } },
    boards: [
      { id: 'high', name: 'High score', order: 'desc', operator: 'best', periods: ['all', 'daily', 'weekly', 'monthly'], source },
      { id: 'latest', name: 'Latest score', order: 'desc', operator: 'latest', periods: ['all'], source },
      { id: 'total', name: 'Total score', order: 'desc', operator: 'sum', periods: ['all', 'weekly'], source },
      { id: 'fastest', name: 'Fastest', order: 'asc', operator: 'best', periods: ['all', 'daily'], source: { adapter: 'score', value: 'durationMs' } },
    ],
  };
}

/** Records a run's result the way run submission does: in a transaction, published after commit. */
export async function recordResult(
  app: GameApp,
  game: GameDefinition,
  player: { id: string; displayName?: string },
  result: Record<string, number>,
  achievedAt: number = app.clock.now(),
): Promise<BoardStanding[]> {
  const pending = await app.database.db.transaction().execute(async (trx) =>
    app.leaderboards.recordScores(trx, {
      game,
      playerId: player.id,
      displayName: player.displayName ?? player.id,
      adapterId: 'score',
      result,
      achievedAt,
    }),
  );
  return pending.publish();
}

/** A signed-in player: id and the headers that authenticate as them. */
export async function signedIn(app: App, gameId: string, name: string): Promise<{ id: string; displayName: string; headers: Record<string, string> }> {
  const session = await devSignIn(app, gameId, name);
  return { ...session.player, headers: bearer(session.accessToken) };
}

/** GET a leaderboard URL as a player; returns status and parsed body. */
export async function getJson(app: App, url: string, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const response = await app.inject({ method: 'GET', url, headers });
  // Every answer, leaderboard pages included (they have serializers of their own), is typed JSON.
  expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
  // `any`: test bodies are asserted field by field against several response shapes.
  return { status: response.statusCode, body: response.json() };
}

/** Test settings: limits high enough that the tests' many sign-ins and reads are never throttled. */
export const unthrottled = { GAME_PLAYER_RATE_LIMIT_MAX: '1000000', GAME_AUTH_RATE_LIMIT_MAX: '1000000' };

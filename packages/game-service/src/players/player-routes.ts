import { errorResponses } from '@playstack/server-kit';
import { GameParams } from '../games/game-params.js';
import type { GameFeature } from '../games/game-scope.js';
import { DeletePlayerResponse } from './player-schemas.js';
import type { GameApp } from '../database.js';

/** `DELETE /player`: the caller's data, all of it, in one transaction. */
export const playerRoutes: GameFeature = async (app: GameApp) => {
  app.delete(
    '/player',
    {
      preHandler: [app.requirePlayer, app.playerRateLimit],
      schema: {
        tags: ['players'],
        summary: "Delete the caller's data: runs, leaderboard entries in every period, sessions, platform link",
        security: [{ playerToken: [] }],
        params: GameParams,
        response: { 200: DeletePlayerResponse, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => ({
      deleted: await app.playerErasure.erase(app.database, { gameId: request.game.id, playerId: request.player.id }, request.log),
    }),
  );
};

import { Type } from '@sinclair/typebox';
import { ApiError } from '@playstack/server-kit';
import type { Period } from '../manifest/manifest-schema.js';
import { runStatuses, type RunStatus } from '../runs/run-record.js';
import type { AdminPageContext } from './admin-page-context.js';
import { gameBody, gamesBody, runsBody } from './admin-views.js';

const runsPageSize = 50;
const periods: readonly Period[] = ['all', 'daily', 'weekly', 'monthly', 'event'];
const GameParams = Type.Object({ gameId: Type.String() });

/** The games list, a game's boards, and a game's runs. */
export function adminGameRoutes(context: AdminPageContext): void {
  const { app, data, respond } = context;

  app.get('/games', { schema: { hide: true } }, async (request, reply) => {
    const games = await data.games();
    return respond(request, reply, { title: 'Games', json: { games }, body: () => gamesBody(games) });
  });

  app.get('/games/:gameId', { schema: { hide: true, params: GameParams, querystring: Type.Object({ period: Type.Optional(Type.String({ maxLength: 10 })) }) } }, async (request, reply) => {
    const game = app.games.require(request.params.gameId);
    const requested = periods.find((p) => p === request.query.period);
    const [boards, activity] = await Promise.all([data.boardTops(game, requested), data.activity(game.id)]);
    return respond(request, reply, {
      title: game.name,
      json: { game: { id: game.id, name: game.name, provider: game.auth.provider, adapters: game.adapters }, activity, boards },
      body: () => gameBody(game, activity, boards, app.clock.now()),
    });
  });

  app.get(
    '/games/:gameId/runs',
    {
      schema: {
        hide: true,
        params: GameParams,
        querystring: Type.Object({
          status: Type.Optional(Type.String({ maxLength: 16 })),
          player: Type.Optional(Type.String({ maxLength: 128 })),
          before: Type.Optional(Type.Integer({ minimum: 1 })),
        }),
      },
    },
    async (request, reply) => {
      const game = app.games.require(request.params.gameId);
      const { status, player, before } = request.query;
      if (status && !runStatuses.includes(status as RunStatus)) {
        throw new ApiError('invalid-request', `querystring.status must be one of ${runStatuses.join(', ')}`);
      }
      const view = await data.runs(game.id, { status: (status || undefined) as RunStatus | undefined, player: player || undefined }, before, runsPageSize);
      return respond(request, reply, { title: `Runs of ${game.name}`, json: view, body: () => runsBody(view, app.clock.now()) });
    },
  );
}

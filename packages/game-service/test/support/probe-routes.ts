import type { App } from '@playstack/server-kit';

/**
 * Adds player-guarded probe routes under /probe/:gameId before the app starts, declared the way
 * a feature declares its routes: `default` on the default per-player limit, `strict` on a limit
 * of its own (1 call a minute). Each answers the authenticated player.
 */
export function withProbes(app: App): App {
  void app.register(async (scope) => {
    scope.addHook('onRequest', async (request) => {
      request.game = app.games.require((request.params as { gameId: string }).gameId);
    });
    const strict = app.createPlayerRateLimit('strict-probe', { max: 1, timeWindowMs: 60_000 });
    scope.get('/probe/:gameId/default', { preHandler: [app.requirePlayer, app.playerRateLimit] }, async (request) => request.player);
    scope.get('/probe/:gameId/strict', { preHandler: [app.requirePlayer, strict] }, async (request) => request.player);
  });
  return app;
}

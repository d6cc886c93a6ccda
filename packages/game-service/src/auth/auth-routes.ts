import { errorResponses } from '@playstack/server-kit';
import { GameParams } from '../games/game-params.js';
import type { GameFeature } from '../games/game-scope.js';
import { ExchangeBody, LogoutBody, LogoutResponse, RefreshBody, SessionResponse } from './auth-schemas.js';

/** `/auth/exchange`, `/auth/refresh`, `/auth/logout` of a game; limited per client address. */
export const authRoutes: GameFeature = async (app) => {

  app.post(
    '/auth/exchange',
    {
      onRequest: app.authRateLimit,
      schema: {
        tags: ['auth'],
        summary: 'Exchange a platform server authorization code for a session',
        security: [],
        params: GameParams,
        body: ExchangeBody,
        response: { 200: SessionResponse, ...errorResponses(400, 401, 404, 413, 415, 429, 502, 503) },
      },
    },
    async (request) => app.sessions.exchange(request.game, request.body.authorizationCode),
  );

  app.post(
    '/auth/refresh',
    {
      onRequest: app.authRateLimit,
      schema: {
        tags: ['auth'],
        summary: 'Rotate a refresh token: the presented one is spent, the next one returned',
        security: [],
        params: GameParams,
        body: RefreshBody,
        response: { 200: SessionResponse, ...errorResponses(400, 401, 404, 413, 415, 429) },
      },
    },
    async (request) => app.sessions.refresh(request.game, request.body.refreshToken),
  );

  app.post(
    '/auth/logout',
    {
      onRequest: app.authRateLimit,
      schema: {
        tags: ['auth'],
        summary: "Revoke the refresh token's whole family and the access tokens issued from it",
        security: [],
        params: GameParams,
        body: LogoutBody,
        response: { 200: LogoutResponse, ...errorResponses(400, 401, 404, 413, 415, 429) },
      },
    },
    async (request) => {
      await app.sessions.logout(request.game, request.body.refreshToken);
      return { revoked: true as const };
    },
  );
};

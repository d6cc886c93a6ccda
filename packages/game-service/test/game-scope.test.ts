import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '@playstack/server-kit';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { bearer, devSignIn, manifestWith, otherGame, storeManifest } from './support/identity-fixtures.js';
import { buildTestApp } from './support/test-app.js';

const shortestId = 'ab';
const longestId = 'g'.repeat(48);

describeEachDatabase('game paths: gameId and request bodies', (database) => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp(database(), { GAME_AUTH_RATE_LIMIT_MAX: '10000' });
    await storeManifest(app, manifestWith({ ...otherGame, id: shortestId }, { ...otherGame, id: longestId }));
  });
  afterAll(async () => {
    await app.close();
  });

  const post = (url: string, payload?: string | object, headers: Record<string, string> = {}) =>
    payload === undefined ? app.inject({ method: 'POST', url, headers }) : app.inject({ method: 'POST', url, payload, headers });
  const expectInvalidRequest = (response: Awaited<ReturnType<typeof post>>, mentioning: string) => {
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('invalid-request');
    expect(response.json().error.message).toContain(mentioning);
  };

  describe('gameId (2 to 48 characters)', () => {
    it('accepts ids of 2 and of 48 characters', async () => {
      for (const gameId of [shortestId, longestId]) {
        const response = await post(`/v1/games/${gameId}/auth/exchange`, { authorizationCode: 'dev:edge' });
        expect(response.statusCode).toBe(200);
      }
    });

    it('refuses ids of 1 and of 49 characters with 400 invalid-request, on every game path', async () => {
      for (const gameId of ['a', 'g'.repeat(49)]) {
        for (const path of ['auth/exchange', 'auth/refresh', 'auth/logout']) {
          expectInvalidRequest(await post(`/v1/games/${gameId}/${path}`, { authorizationCode: 'dev:x' }), 'gameId');
        }
        expectInvalidRequest(await app.inject({ method: 'DELETE', url: `/v1/games/${gameId}/player` }), 'gameId');
        expectInvalidRequest(await app.inject({ method: 'GET', url: `/v1/games/${gameId}/leaderboards/high-score` }), 'gameId');
        expectInvalidRequest(await post(`/v1/games/${gameId}/runs/score`, { runId: 'run-00001', payload: {} }), 'gameId');
      }
    });

    it('answers 404 game-not-found for an unknown game on every game path, before body checks and auth', async () => {
      const session = await devSignIn(app, 'demo', 'visitor');
      const requests = [
        post('/v1/games/unknown/auth/exchange', { authorizationCode: 'dev:x' }),
        post('/v1/games/unknown/auth/refresh', { wrong: true }),
        post('/v1/games/unknown/auth/logout'),
        app.inject({ method: 'DELETE', url: '/v1/games/unknown/player' }),
        app.inject({ method: 'DELETE', url: '/v1/games/unknown/player', headers: bearer(session.accessToken) }),
        app.inject({ method: 'GET', url: '/v1/games/unknown/leaderboards/high-score', headers: bearer(session.accessToken) }),
        app.inject({ method: 'GET', url: '/v1/games/unknown/leaderboards/high-score/me?radius=99' }),
        app.inject({ method: 'GET', url: '/v1/games/unknown/leaderboards/high-score/around-me' }),
        post('/v1/games/unknown/runs/score', { runId: 'x' }, bearer(session.accessToken)),
      ];
      for (const response of await Promise.all(requests)) {
        expect(response.statusCode).toBe(404);
        expect(response.json().error).toMatchObject({ code: 'game-not-found', requestId: response.headers['x-request-id'] });
      }
    });
  });

  describe('authorizationCode (1 to 2048 characters)', () => {
    it('passes codes of 1 and of 2048 characters on to the provider', async () => {
      for (const authorizationCode of ['x', `dev:${'n'.repeat(2044)}`]) {
        const response = await post('/v1/games/demo/auth/exchange', { authorizationCode });
        expect(response.statusCode).toBe(401);
        expect(response.json().error.code).toBe('invalid-grant');
      }
    });

    it('refuses an empty code and one of 2049 characters with 400', async () => {
      expectInvalidRequest(await post('/v1/games/demo/auth/exchange', { authorizationCode: '' }), 'authorizationCode');
      expectInvalidRequest(await post('/v1/games/demo/auth/exchange', { authorizationCode: 'x'.repeat(2049) }), 'authorizationCode');
    });
  });

  describe('refreshToken (16 to 256 characters)', () => {
    for (const path of ['refresh', 'logout']) {
      it(`passes tokens of 16 and of 256 characters on /auth/${path} to the lookup`, async () => {
        for (const refreshToken of ['r'.repeat(16), 'r'.repeat(256)]) {
          const response = await post(`/v1/games/demo/auth/${path}`, { refreshToken });
          expect(response.statusCode).toBe(401);
          expect(response.json().error.code).toBe('invalid-grant');
        }
      });

      it(`refuses tokens of 15 and of 257 characters on /auth/${path} with 400`, async () => {
        expectInvalidRequest(await post(`/v1/games/demo/auth/${path}`, { refreshToken: 'r'.repeat(15) }), 'refreshToken');
        expectInvalidRequest(await post(`/v1/games/demo/auth/${path}`, { refreshToken: 'r'.repeat(257) }), 'refreshToken');
      });
    }
  });

  describe('bodies', () => {
    for (const [path, valid] of [
      ['exchange', { authorizationCode: 'dev:body' }],
      ['refresh', { refreshToken: 'r'.repeat(20) }],
      ['logout', { refreshToken: 'r'.repeat(20) }],
    ] as const) {
      it(`refuses additional members, missing bodies and wrong types on /auth/${path} with 400`, async () => {
        expectInvalidRequest(await post(`/v1/games/demo/auth/${path}`, { ...valid, extra: 1 }), 'extra');
        expectInvalidRequest(await post(`/v1/games/demo/auth/${path}`), 'body');
        expectInvalidRequest(await post(`/v1/games/demo/auth/${path}`, {}), Object.keys(valid)[0]!);
        expectInvalidRequest(await post(`/v1/games/demo/auth/${path}`, { [Object.keys(valid)[0]!]: 42 }), Object.keys(valid)[0]!);
        expectInvalidRequest(await post(`/v1/games/demo/auth/${path}`, '{"broken', { 'content-type': 'application/json' }), 'JSON');
      });
    }

    it('refuses bodies that are not JSON with 415', async () => {
      const response = await post('/v1/games/demo/auth/exchange', 'authorizationCode=dev:x', { 'content-type': 'application/x-www-form-urlencoded' });
      expect(response.statusCode).toBe(415);
      expect(response.json().error.code).toBe('unsupported-media-type');
    });
  });
});

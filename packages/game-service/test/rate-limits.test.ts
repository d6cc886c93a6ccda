import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '@playstack/server-kit';
import { describeEachDatabase, redisVariants } from '@playstack/server-kit/testing';
import { bearer, devSignIn } from './support/identity-fixtures.js';
import { withProbes } from './support/probe-routes.js';
import { buildTestApp } from './support/test-app.js';

const limits = { GAME_AUTH_RATE_LIMIT_MAX: '3', GAME_PLAYER_RATE_LIMIT_MAX: '2', GAME_PLAYER_RATE_LIMIT_WINDOW_MS: '60000' };

const exchange = (app: App, name: string, remoteAddress = '203.0.113.7') =>
  app.inject({ method: 'POST', url: '/v1/games/demo/auth/exchange', payload: { authorizationCode: `dev:${name}` }, remoteAddress });

function expectRateLimited(response: Awaited<ReturnType<App['inject']>>) {
  expect(response.statusCode).toBe(429);
  expect(response.json().error).toMatchObject({ code: 'rate-limited', requestId: response.headers['x-request-id'] });
  const retryAfter = Number(response.headers['retry-after']);
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(response.headers['ratelimit-limit']).toBeDefined();
  expect(response.headers['ratelimit-remaining']).toBe('0');
  expect(response.headers['ratelimit-reset']).toBeDefined();
}

for (const variant of redisVariants()) {
  describeEachDatabase(`rate limits, counters ${variant.name}`, (database) => {
    describe('per client address on /auth/*', () => {
      let app: App;
      beforeAll(async () => {
        app = await buildTestApp(database(), { ...limits, ...variant.env() });
      });
      afterAll(async () => {
        await app.close();
      });

      it('answers 429 rate-limited with Retry-After after the configured number of calls', async () => {
        for (let call = 1; call <= 3; call++) {
          const response = await exchange(app, `caller${call}`);
          expect(response.statusCode).toBe(200);
          expect(response.headers['ratelimit-remaining']).toBe(String(3 - call));
        }
        expectRateLimited(await exchange(app, 'caller4'));
        const refresh = await app.inject({ method: 'POST', url: '/v1/games/demo/auth/refresh', payload: { refreshToken: 'r'.repeat(20) }, remoteAddress: '203.0.113.7' });
        expectRateLimited(refresh);
      });

      it('counts each client address on its own', async () => {
        expect((await exchange(app, 'neighbour', '198.51.100.20')).statusCode).toBe(200);
      });
    });

    describe('per player on other game endpoints', () => {
      let app: App;
      beforeAll(async () => {
        app = withProbes(await buildTestApp(database(), { ...limits, GAME_AUTH_RATE_LIMIT_MAX: '100', ...variant.env() }));
      });
      afterAll(async () => {
        await app.close();
      });

      it('limits each player after the configured number of calls, DELETE /player included', async () => {
        const busy = await devSignIn(app, 'demo', 'busy');
        const calm = await devSignIn(app, 'demo', 'calm');
        for (let call = 0; call < 2; call++) {
          expect((await app.inject({ method: 'GET', url: '/probe/demo/default', headers: bearer(busy.accessToken) })).statusCode).toBe(200);
        }
        expectRateLimited(await app.inject({ method: 'GET', url: '/probe/demo/default', headers: bearer(busy.accessToken) }));
        expectRateLimited(await app.inject({ method: 'DELETE', url: '/v1/games/demo/player', headers: bearer(busy.accessToken) }));
        expect((await app.inject({ method: 'GET', url: '/probe/demo/default', headers: bearer(calm.accessToken) })).statusCode).toBe(200);
      });

      it('keeps a feature’s own per-player limit apart from the default one', async () => {
        const player = await devSignIn(app, 'demo', 'strict');
        expect((await app.inject({ method: 'GET', url: '/probe/demo/strict', headers: bearer(player.accessToken) })).statusCode).toBe(200);
        expectRateLimited(await app.inject({ method: 'GET', url: '/probe/demo/strict', headers: bearer(player.accessToken) }));
        expect((await app.inject({ method: 'GET', url: '/probe/demo/default', headers: bearer(player.accessToken) })).statusCode).toBe(200);
      });

      it('authenticates before counting: calls without a valid token are 401, not counted', async () => {
        for (let call = 0; call < 3; call++) {
          expect((await app.inject({ method: 'GET', url: '/probe/demo/default' })).statusCode).toBe(401);
        }
      });
    });

    describe('several instances', () => {
      const shared = variant.name === 'redis';
      it(shared ? 'shares the counters between instances through Redis' : 'counts per instance without Redis', async () => {
        const env = { ...limits, ...variant.env() };
        const first = await buildTestApp(database(), env);
        const second = await buildTestApp(database(), env);
        try {
          expect((await exchange(first, 'shared1')).statusCode).toBe(200);
          expect((await exchange(second, 'shared2')).statusCode).toBe(200);
          expect((await exchange(first, 'shared3')).statusCode).toBe(200);
          const fourth = await exchange(second, 'shared4');
          if (shared) expectRateLimited(fourth);
          else expect(fourth.statusCode).toBe(200);
        } finally {
          await first.close();
          await second.close();
        }
      });
    });
  });
}

describeEachDatabase('rate limit counters in memory (no Redis)', (database) => {
  /** A call to /auth/exchange with a body it refuses (400): counted by the limit, no sign-in work. */
  const counted = (app: App, remoteAddress: string) => app.inject({ method: 'POST', url: '/v1/games/demo/auth/exchange', payload: {}, remoteAddress });
  const address = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

  it('keeps a counter for every client of a busy window by default (more than the library default of 5,000)', async () => {
    const app = await buildTestApp(database(), { GAME_AUTH_RATE_LIMIT_MAX: '1' });
    try {
      expect((await counted(app, '203.0.113.1')).statusCode).toBe(400);
      for (let i = 1; i <= 6_000; i++) expect((await counted(app, address(i))).statusCode).toBe(400);
      expectRateLimited(await counted(app, '203.0.113.1'));
    } finally {
      await app.close();
    }
  });

  it('forgets the least recently seen counter beyond GAME_RATE_LIMIT_MEMORY_KEYS', async () => {
    const app = await buildTestApp(database(), { GAME_AUTH_RATE_LIMIT_MAX: '1', GAME_RATE_LIMIT_MEMORY_KEYS: '10' });
    try {
      for (let i = 1; i <= 10; i++) expect((await counted(app, address(i))).statusCode).toBe(400);
      // Ten counters, all kept: the first address is still limited (and now the most recently seen).
      expectRateLimited(await counted(app, address(1)));
      // An eleventh address pushes out the least recently seen one, the second: it counts from zero.
      expect((await counted(app, address(11))).statusCode).toBe(400);
      expect((await counted(app, address(2))).statusCode).toBe(400);
      expectRateLimited(await counted(app, address(1)));
    } finally {
      await app.close();
    }
  });
});

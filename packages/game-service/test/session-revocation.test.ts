import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock, type App } from '@playstack/server-kit';
import { describeEachDatabase, redisVariants } from '@playstack/server-kit/testing';
import { bearer, devSignIn } from './support/identity-fixtures.js';
import { withProbes } from './support/probe-routes.js';
import { startTcpProxy } from './support/tcp-proxy.js';
import { buildTestApp } from './support/test-app.js';

const revocationCacheMs = 1_000;

for (const variant of redisVariants()) {
  describeEachDatabase(`access token revocation across instances, ${variant.name}`, (database) => {
    const clock = new ManualClock('2026-11-21T10:00:00.000Z');
    let first: App;
    let second: App;
    let env: Record<string, string>;
    beforeAll(async () => {
      env = { ...variant.env(), GAME_REVOCATION_CACHE_MS: String(revocationCacheMs), GAME_PLAYER_RATE_LIMIT_MAX: '1000' };
      first = withProbes(await buildTestApp(database(), env, { clock }));
      second = withProbes(await buildTestApp(database(), env, { clock }));
    });
    afterAll(async () => {
      await first.close();
      await second.close();
    });

    const probe = (app: App, accessToken: string) => app.inject({ method: 'GET', url: '/probe/demo/default', headers: bearer(accessToken) });

    it('sets request.player from the access token', async () => {
      const session = await devSignIn(first, 'demo', 'probed');
      const response = await probe(second, session.accessToken);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ id: session.player.id, gameId: 'demo', displayName: 'probed' });
    });

    it('kills the access token on the instance that logged out at once', async () => {
      const session = await devSignIn(first, 'demo', 'local-logout');
      expect((await probe(first, session.accessToken)).statusCode).toBe(200);
      await first.inject({ method: 'POST', url: '/v1/games/demo/auth/logout', payload: { refreshToken: session.refreshToken } });
      expect((await probe(first, session.accessToken)).statusCode).toBe(401);
    });

    if (variant.name === 'redis') {
      it('kills the access token on every other instance at once', async () => {
        const session = await devSignIn(first, 'demo', 'remote-logout');
        expect((await probe(second, session.accessToken)).statusCode).toBe(200);
        await first.inject({ method: 'POST', url: '/v1/games/demo/auth/logout', payload: { refreshToken: session.refreshToken } });
        expect((await probe(second, session.accessToken)).statusCode).toBe(401);
      });
    } else {
      it('kills the access token on other instances within GAME_REVOCATION_CACHE_MS', async () => {
        const session = await devSignIn(first, 'demo', 'remote-logout');
        expect((await probe(second, session.accessToken)).statusCode).toBe(200);
        await first.inject({ method: 'POST', url: '/v1/games/demo/auth/logout', payload: { refreshToken: session.refreshToken } });
        clock.advance(revocationCacheMs);
        expect((await probe(second, session.accessToken)).statusCode).toBe(401);
      });
    }

    if (variant.name === 'redis') {
      it('falls back to the database while Redis does not answer: live tokens pass, revoked ones do not', async () => {
        const env = { ...variant.env(), GAME_PLAYER_RATE_LIMIT_MAX: '1000' };
        const isolated = withProbes(await buildTestApp(database(), env, { clock }));
        try {
          const live = await devSignIn(isolated, 'demo', 'redis-outage-live');
          const gone = await devSignIn(isolated, 'demo', 'redis-outage-gone');
          await isolated.inject({ method: 'POST', url: '/v1/games/demo/auth/logout', payload: { refreshToken: gone.refreshToken } });
          isolated.redis!.disconnect();
          expect((await probe(isolated, live.accessToken)).statusCode).toBe(200);
          // A fresh instance's view, with nothing remembered locally: the database answers.
          const fresh = withProbes(await buildTestApp(database(), env, { clock }));
          try {
            fresh.redis!.disconnect();
            expect((await probe(fresh, gone.accessToken)).statusCode).toBe(401);
            expect((await probe(fresh, live.accessToken)).statusCode).toBe(200);
          } finally {
            await fresh.close();
          }
        } finally {
          await isolated.close();
        }
      });
    }

    if (variant.name === 'redis') {
      it('answers logout and reuse while this instance cannot reach Redis, and other instances refuse the tokens within GAME_REVOCATION_CACHE_MS', async () => {
        // The instance reaches Redis through a proxy the test cuts; the others keep their Redis.
        const redisUrl = new URL(env.REDIS_URL!);
        const proxy = await startTcpProxy(redisUrl.hostname, Number(redisUrl.port || 6379));
        redisUrl.host = `127.0.0.1:${proxy.port}`;
        const cutOff = withProbes(await buildTestApp(database(), { ...env, REDIS_URL: redisUrl.toString() }, { clock }));
        try {
          const refresh = (refreshToken: string) => cutOff.inject({ method: 'POST', url: '/v1/games/demo/auth/refresh', payload: { refreshToken } });
          const loggedOut = await devSignIn(cutOff, 'demo', 'outage-logout');
          const reused = await devSignIn(cutOff, 'demo', 'outage-reuse');
          const rotated = (await refresh(reused.refreshToken)).json() as { accessToken: string };
          clock.advance(11_000); // past the refresh grace window: presenting the first token again is reuse
          expect((await probe(second, loggedOut.accessToken)).statusCode).toBe(200);
          expect((await probe(second, rotated.accessToken)).statusCode).toBe(200);

          await proxy.cut();
          const logout = await cutOff.inject({ method: 'POST', url: '/v1/games/demo/auth/logout', payload: { refreshToken: loggedOut.refreshToken } });
          expect(logout.statusCode).toBe(200);
          expect(logout.json()).toEqual({ revoked: true });
          const reuse = await refresh(reused.refreshToken);
          expect(reuse.statusCode).toBe(401);
          expect(reuse.json().error.code).toBe('invalid-grant');
          expect((await probe(cutOff, loggedOut.accessToken)).statusCode).toBe(401);
          expect((await probe(cutOff, rotated.accessToken)).statusCode).toBe(401);

          clock.advance(revocationCacheMs);
          expect((await probe(second, loggedOut.accessToken)).statusCode).toBe(401);
          expect((await probe(second, rotated.accessToken)).statusCode).toBe(401);
          const failures = await cutOff.metrics.getSingleMetric('game_session_revocation_redis_write_failures_total')!.get();
          expect(failures.values.reduce((sum, value) => sum + value.value, 0)).toBe(2);
        } finally {
          cutOff.redis!.disconnect(); // no reconnecting to the cut proxy while closing
          await cutOff.close();
        }
      });
    }

    it('kills the access tokens of a deleted player on every instance', async () => {
      const session = await devSignIn(first, 'demo', 'deleted-remotely');
      expect((await probe(second, session.accessToken)).statusCode).toBe(200);
      await first.inject({ method: 'DELETE', url: '/v1/games/demo/player', headers: bearer(session.accessToken) });
      clock.advance(revocationCacheMs);
      expect((await probe(second, session.accessToken)).statusCode).toBe(401);
    });

    it('kills the whole family on every instance when a spent refresh token is reused', async () => {
      const session = await devSignIn(first, 'demo', 'reused-remotely');
      const next = (await first.inject({ method: 'POST', url: '/v1/games/demo/auth/refresh', payload: { refreshToken: session.refreshToken } })).json();
      expect((await probe(second, next.accessToken)).statusCode).toBe(200);
      clock.advance(11_000);
      await first.inject({ method: 'POST', url: '/v1/games/demo/auth/refresh', payload: { refreshToken: session.refreshToken } });
      clock.advance(revocationCacheMs);
      expect((await probe(second, next.accessToken)).statusCode).toBe(401);
    });
  });
}

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, type App } from '@playstack/server-kit';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { bearer, devSignIn, manifestWith, otherGame, storeManifest } from './support/identity-fixtures.js';
import { buildTestApp } from './support/test-app.js';

const start = '2026-11-21T10:00:00.000Z';

describeEachDatabase('sessions: exchange, refresh, logout', (database) => {
  const clock = new ManualClock(start);
  let app: App;

  beforeAll(async () => {
    app = await buildTestApp(database(), { GAME_AUTH_RATE_LIMIT_MAX: '10000', GAME_PLAYER_RATE_LIMIT_MAX: '10000' }, { clock });
    await storeManifest(app, manifestWith(otherGame));
  });
  afterAll(async () => {
    await app.close();
  });

  const refresh = (refreshToken: string, gameId = 'demo') =>
    app.inject({ method: 'POST', url: `/v1/games/${gameId}/auth/refresh`, payload: { refreshToken } });
  const logout = (refreshToken: string, gameId = 'demo') =>
    app.inject({ method: 'POST', url: `/v1/games/${gameId}/auth/logout`, payload: { refreshToken } });
  /** A call that needs the access token. */
  const authed = (accessToken: string, gameId = 'demo') =>
    app.inject({ method: 'DELETE', url: `/v1/games/${gameId}/player`, headers: bearer(accessToken) });
  const expectInvalidGrant = (response: Awaited<ReturnType<typeof refresh>>) => {
    expect(response.statusCode).toBe(401);
    expect(response.json().error.code).toBe('invalid-grant');
  };

  describe('exchange', () => {
    it('answers the session shape with lifetimes in seconds', async () => {
      const response = await app.inject({ method: 'POST', url: '/v1/games/demo/auth/exchange', payload: { authorizationCode: 'dev:shape' } });
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body).toEqual({
        accessToken: expect.any(String),
        tokenType: 'Bearer',
        expiresIn: 900,
        refreshToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        refreshExpiresIn: 30 * 24 * 3600,
        player: { id: expect.any(String), displayName: 'shape' },
      });
    });

    it('keeps one player per platform identity and game', async () => {
      const first = await devSignIn(app, 'demo', 'same');
      const again = await devSignIn(app, 'demo', 'same');
      const elsewhere = await devSignIn(app, 'other', 'same');
      expect(again.player.id).toBe(first.player.id);
      expect(elsewhere.player.id).not.toBe(first.player.id);
    });

    it('signs in 40 players at once (12 of them twice): one player per identity, every session of its own and working', async () => {
      const names = [...Array.from({ length: 28 }, (_, i) => `together-${i}`), ...Array.from({ length: 12 }, (_, i) => `together-${i}`)];
      const sessions = await Promise.all(names.map((name) => devSignIn(app, 'demo', name)));
      const playerOf = new Map<string, string>();
      for (const [i, session] of sessions.entries()) {
        const known = playerOf.get(names[i]!);
        if (known) expect(session.player.id).toBe(known);
        playerOf.set(names[i]!, session.player.id);
      }
      expect(new Set(playerOf.values()).size).toBe(28);
      expect(new Set(sessions.map((session) => session.refreshToken)).size).toBe(40);
      const refreshed = await Promise.all(sessions.map((session) => refresh(session.refreshToken)));
      expect(refreshed.map((response) => response.statusCode)).toEqual(sessions.map(() => 200));
    });

    it('refuses codes that are not dev:<name> with 401 invalid-grant', async () => {
      for (const authorizationCode of ['alice', 'dev:', 'dev:a/b', `dev:${'x'.repeat(65)}`]) {
        const response = await app.inject({ method: 'POST', url: '/v1/games/demo/auth/exchange', payload: { authorizationCode } });
        expectInvalidGrant(response);
      }
    });
  });

  describe('refresh', () => {
    it('rotates: the new token works, the presented one is spent', async () => {
      const session = await devSignIn(app, 'demo', 'rotor');
      const rotated = await refresh(session.refreshToken);
      expect(rotated.statusCode).toBe(200);
      expect(rotated.json().refreshToken).not.toBe(session.refreshToken);
      expect(rotated.json().player).toEqual(session.player);
      expect((await refresh(rotated.json().refreshToken)).statusCode).toBe(200);
    });

    it('treats a spent token presented again as reuse: the whole family is revoked, the newest token too', async () => {
      const session = await devSignIn(app, 'demo', 'reuser');
      const second = (await refresh(session.refreshToken)).json();
      const third = (await refresh(second.refreshToken)).json();
      clock.advance(11_000);
      expectInvalidGrant(await refresh(session.refreshToken));
      expectInvalidGrant(await refresh(third.refreshToken));
      expect((await authed(third.accessToken)).statusCode).toBe(401);
    });

    it('gives refreshes racing with one token the same successor, all usable (idempotent within the grace window)', async () => {
      const session = await devSignIn(app, 'demo', 'racer');
      const [a, b] = await Promise.all([refresh(session.refreshToken), refresh(session.refreshToken)]);
      expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
      expect(b.json().refreshToken).toBe(a.json().refreshToken);
      for (const grant of [a, b]) {
        const me = await app.inject({ method: 'GET', url: '/v1/games/demo/leaderboards/high-score/me', headers: bearer(grant.json().accessToken) });
        expect(me.statusCode).toBe(200);
      }
      expect((await refresh(b.json().refreshToken)).statusCode).toBe(200);
    });

    it('accepts the token just spent any number of times within the grace window, with the same successor', async () => {
      const session = await devSignIn(app, 'demo', 'graceful');
      const next = (await refresh(session.refreshToken)).json();
      clock.advance(9_000);
      for (let again = 0; again < 3; again++) {
        const graced = await refresh(session.refreshToken);
        expect(graced.statusCode).toBe(200);
        expect(graced.json().refreshToken).toBe(next.refreshToken);
        // The successor was issued 9 s ago: its remaining lifetime, not a fresh one.
        expect(graced.json().refreshExpiresIn).toBe(30 * 24 * 3600 - 9);
      }
      expect((await refresh(next.refreshToken)).statusCode).toBe(200);
    });

    it('counts the previous token after the grace window as reuse', async () => {
      const session = await devSignIn(app, 'demo', 'late');
      const next = (await refresh(session.refreshToken)).json();
      clock.advance(10_001);
      expectInvalidGrant(await refresh(session.refreshToken));
      expectInvalidGrant(await refresh(next.refreshToken));
    });

    it('never tolerates a token older than the previous one, even within the window', async () => {
      const session = await devSignIn(app, 'demo', 'older');
      const second = (await refresh(session.refreshToken)).json();
      const third = (await refresh(second.refreshToken)).json();
      expectInvalidGrant(await refresh(session.refreshToken));
      expectInvalidGrant(await refresh(third.refreshToken));
    });

    it('refuses an unknown refresh token with 401 invalid-grant', async () => {
      expectInvalidGrant(await refresh('x'.repeat(43)));
    });

    it('refuses an expired refresh token with 401 invalid-grant', async () => {
      const session = await devSignIn(app, 'demo', 'expiring');
      clock.advance(30 * 24 * 3600 * 1000);
      expectInvalidGrant(await refresh(session.refreshToken));
    });

    it('refuses a refresh token of game A on game B with 401 invalid-grant', async () => {
      const session = await devSignIn(app, 'demo', 'crossing');
      expectInvalidGrant(await refresh(session.refreshToken, 'other'));
      expectInvalidGrant(await logout(session.refreshToken, 'other'));
      expect((await refresh(session.refreshToken)).statusCode).toBe(200);
    });
  });

  describe('access tokens', () => {
    it('accepts a fresh access token and refuses it once expired', async () => {
      const session = await devSignIn(app, 'other', 'shortlived');
      const fresh = await app.inject({ method: 'DELETE', url: '/v1/games/other/player', headers: bearer(session.accessToken) });
      expect(fresh.statusCode).toBe(200);
      const later = await devSignIn(app, 'other', 'shortlived-2');
      clock.advance(900_000);
      const expired = await app.inject({ method: 'DELETE', url: '/v1/games/other/player', headers: bearer(later.accessToken) });
      expect(expired.statusCode).toBe(401);
      expect(expired.json().error.code).toBe('unauthorized');
    });

    it('refuses a token of game A on game B with 401 unauthorized', async () => {
      const session = await devSignIn(app, 'demo', 'wanderer');
      const response = await app.inject({ method: 'DELETE', url: '/v1/games/other/player', headers: bearer(session.accessToken) });
      expect(response.statusCode).toBe(401);
      expect(response.json().error.code).toBe('unauthorized');
    });

    it('refuses missing, malformed and tampered tokens with 401 unauthorized', async () => {
      const session = await devSignIn(app, 'demo', 'tamper');
      const [prefix, payload, signature] = session.accessToken.split('.');
      const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
      const forged = `${prefix}.${Buffer.from(JSON.stringify({ ...claims, gid: 'other' })).toString('base64url')}.${signature}`;
      for (const authorization of [undefined, 'Basic abc', 'Bearer', `Bearer ${session.accessToken}x`, 'Bearer a.b.c']) {
        const response = await app.inject({ method: 'DELETE', url: '/v1/games/demo/player', headers: authorization ? { authorization } : {} });
        expect(response.statusCode).toBe(401);
        expect(response.json().error.code).toBe('unauthorized');
        expect(response.headers['www-authenticate']).toBe('Bearer');
      }
      const response = await app.inject({ method: 'DELETE', url: '/v1/games/other/player', headers: bearer(forged) });
      expect(response.statusCode).toBe(401);
    });
  });

  describe('logout', () => {
    it('revokes the family: its refresh and access tokens stop working at once', async () => {
      const session = await devSignIn(app, 'demo', 'leaver');
      const rotated = (await refresh(session.refreshToken)).json();
      const response = await logout(rotated.refreshToken);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ revoked: true });
      expectInvalidGrant(await refresh(rotated.refreshToken));
      expect((await authed(rotated.accessToken)).statusCode).toBe(401);
      expect((await authed(session.accessToken)).statusCode).toBe(401);
    });

    it('leaves the player’s other sessions alone', async () => {
      const phone = await devSignIn(app, 'demo', 'two-devices');
      const tablet = await devSignIn(app, 'demo', 'two-devices');
      await logout(phone.refreshToken);
      expect((await refresh(tablet.refreshToken)).statusCode).toBe(200);
    });

    it('refuses a token of an already revoked family with 401 invalid-grant', async () => {
      const session = await devSignIn(app, 'demo', 'twice');
      await logout(session.refreshToken);
      expectInvalidGrant(await logout(session.refreshToken));
    });
  });
});

describeEachDatabase('sessions across restarts and instances', (database) => {
  it('refuses tokens signed with another GAME_TOKEN_SECRET', async () => {
    const signer = await buildTestApp(database(), { GAME_TOKEN_SECRET: 'a'.repeat(32) });
    const session = await devSignIn(signer, 'demo', 'secretive');
    await signer.close();
    const verifier = await buildTestApp(database(), { GAME_TOKEN_SECRET: 'b'.repeat(32) });
    try {
      const response = await verifier.inject({ method: 'DELETE', url: '/v1/games/demo/player', headers: bearer(session.accessToken) });
      expect(response.statusCode).toBe(401);
    } finally {
      await verifier.close();
    }
  });

  it('takes lifetimes and the grace window from the configuration (grace 0: no second presentation)', async () => {
    const app = await buildTestApp(database(), {
      GAME_ACCESS_TOKEN_TTL_SECONDS: '60',
      GAME_REFRESH_TOKEN_TTL_SECONDS: '3600',
      GAME_REFRESH_GRACE_SECONDS: '0',
    });
    try {
      const session = await devSignIn(app, 'demo', 'configured');
      const refresh = (refreshToken: string) => app.inject({ method: 'POST', url: '/v1/games/demo/auth/refresh', payload: { refreshToken } });
      const rotated = await refresh(session.refreshToken);
      expect(rotated.json()).toMatchObject({ expiresIn: 60, refreshExpiresIn: 3600 });
      expect((await refresh(session.refreshToken)).statusCode).toBe(401);
      expect((await refresh(rotated.json().refreshToken)).statusCode).toBe(401);
    } finally {
      await app.close();
    }
  });

  it('refuses dev codes unless GAME_DEV_AUTH is set', async () => {
    const app = await buildTestApp(database(), { GAME_DEV_AUTH: '0' });
    try {
      const response = await app.inject({ method: 'POST', url: '/v1/games/demo/auth/exchange', payload: { authorizationCode: 'dev:alice' } });
      expect(response.statusCode).toBe(401);
      expect(response.json().error.code).toBe('invalid-grant');
    } finally {
      await app.close();
    }
  });
});

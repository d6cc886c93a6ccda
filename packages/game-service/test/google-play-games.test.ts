import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import type { App } from '@playstack/server-kit';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { FakeGoogle } from './support/fake-google.js';
import { bearer, galaxyGame, manifestWith, storeManifest } from './support/identity-fixtures.js';
import { buildTestApp } from './support/test-app.js';

// Long enough for a loaded CI machine to answer the fake in time, short enough for a quick timeout test.
const providerTimeoutMs = 1_000;

describeEachDatabase('google-play-games sign-in', (database) => {
  let google: FakeGoogle;
  let app: App;

  beforeAll(async () => {
    google = await FakeGoogle.start();
    google.addPlayer({ code: 'code-ada', playerId: 'g-ada-1', displayName: 'Ada', applicationId: '123456789012' });
    google.addPlayer({ code: 'code-other-app', playerId: 'g-eve-1', displayName: 'Eve', applicationId: '999999999999' });
    // 20,000 characters, opening with a right-to-left override and a newline.
    google.addPlayer({ code: 'code-long-name', playerId: 'g-long-1', displayName: `\u202E\n  Zoë ${'Ω'.repeat(20_000 - 8)}`, applicationId: '123456789012' });
    google.addPlayer({ code: 'code-huge-answer', playerId: 'g-huge-1', displayName: 'x'.repeat(2 * 1024 * 1024), applicationId: '123456789012' });
    app = await buildTestApp(
      database(),
      { ...google.env, GAME_PROVIDER_TIMEOUT_MS: String(providerTimeoutMs), GAME_AUTH_RATE_LIMIT_MAX: '1000' },
      { secrets: { GALAXY_GOOGLE_CLIENT_SECRET: 'galaxy-secret' } },
    );
    await storeManifest(app, manifestWith(galaxyGame));
  });
  afterAll(async () => {
    await app.close();
    await google.stop();
  });
  beforeEach(() => {
    google.mode = 'ok';
  });

  const exchange = (authorizationCode: string) =>
    app.inject({ method: 'POST', url: '/v1/games/galaxy/auth/exchange', payload: { authorizationCode } });

  it('exchanges a server auth code for a session of the Play Games player', async () => {
    const response = await exchange('code-ada');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ tokenType: 'Bearer', expiresIn: 900, refreshExpiresIn: 2_592_000, player: { displayName: 'Ada' } });
    const player = await app.inject({ method: 'DELETE', url: '/v1/games/galaxy/player', headers: bearer(response.json().accessToken) });
    expect(player.statusCode).toBe(200);
  });

  it('posts code, client id, client secret, an empty redirect_uri and grant_type to the token endpoint', async () => {
    google.tokenRequests.length = 0;
    await exchange('code-ada');
    expect(google.tokenRequests).toEqual([
      {
        contentType: 'application/x-www-form-urlencoded',
        form: {
          code: 'code-ada',
          client_id: '1234-abc.apps.googleusercontent.com',
          client_secret: 'galaxy-secret',
          redirect_uri: '',
          grant_type: 'authorization_code',
        },
      },
    ]);
  });

  it('signs the same Play Games player in as the same player again', async () => {
    const first = await exchange('code-ada');
    const second = await exchange('code-ada');
    expect(second.json().player.id).toBe(first.json().player.id);
  });

  it('bounds a 20,000-character display name where it enters: the token stays small and keeps working', async () => {
    const response = await exchange('code-long-name');
    expect(response.statusCode).toBe(200);
    const session = response.json();
    expect(session.player.displayName).toBe(`Zoë ${'Ω'.repeat(60)}`);
    expect(session.accessToken.length).toBeLessThan(1024);
    const refreshed = await app.inject({ method: 'POST', url: '/v1/games/galaxy/auth/refresh', payload: { refreshToken: session.refreshToken } });
    expect(refreshed.json().accessToken.length).toBeLessThan(1024);
    const board = await app.inject({ method: 'GET', url: '/v1/games/galaxy/leaderboards/high-score/me', headers: bearer(refreshed.json().accessToken) });
    expect(board.statusCode).toBe(200);
  });

  it('answers 502 provider-error, without reading it all, when Google answers more than a mebibyte', async () => {
    const response = await exchange('code-huge-answer');
    expect(response.statusCode).toBe(502);
    expect(response.json().error.code).toBe('provider-error');
  });

  it('refuses a code issued for another Play Games application with 401 invalid-grant', async () => {
    const response = await exchange('code-other-app');
    expect(response.statusCode).toBe(401);
    expect(response.json().error.code).toBe('invalid-grant');
  });

  it('answers 401 invalid-grant when the token endpoint refuses the code (400)', async () => {
    const response = await exchange('code-nobody-issued');
    expect(response.statusCode).toBe(401);
    expect(response.json().error).toMatchObject({ code: 'invalid-grant', requestId: response.headers['x-request-id'] });
  });

  it('answers 502 provider-error when the token endpoint fails', async () => {
    google.mode = 'token-500';
    const response = await exchange('code-ada');
    expect(response.statusCode).toBe(502);
    expect(response.json().error.code).toBe('provider-error');
  });

  it('answers 502 provider-error when the games API answers 500', async () => {
    google.mode = 'games-500';
    const response = await exchange('code-ada');
    expect(response.statusCode).toBe(502);
    expect(response.json().error.code).toBe('provider-error');
  });

  it('answers 503 provider-unavailable when the provider is slower than the timeout', async () => {
    google.mode = 'slow';
    const started = Date.now();
    const response = await exchange('code-ada');
    expect(response.statusCode).toBe(503);
    expect(response.json().error.code).toBe('provider-unavailable');
    expect(Date.now() - started).toBeLessThan(google.slowMs);
  });
});

describeEachDatabase('google-play-games sign-in, provider misconfigured or down', (database) => {
  it('answers 503 provider-unavailable when the provider cannot be reached', async () => {
    const google = await FakeGoogle.start();
    const down = google.env;
    await google.stop();
    const app = await buildTestApp(database(), down, { secrets: { GALAXY_GOOGLE_CLIENT_SECRET: 'galaxy-secret' } });
    try {
      await storeManifest(app, manifestWith(galaxyGame));
      const response = await app.inject({ method: 'POST', url: '/v1/games/galaxy/auth/exchange', payload: { authorizationCode: 'code-ada' } });
      expect(response.statusCode).toBe(503);
      expect(response.json().error.code).toBe('provider-unavailable');
    } finally {
      await app.close();
    }
  });

  it('answers 502 provider-error when Google refuses the client credentials', async () => {
    const google = await FakeGoogle.start();
    google.addPlayer({ code: 'code-ada', playerId: 'g-ada-1', displayName: 'Ada', applicationId: '123456789012' });
    const app = await buildTestApp(database(), google.env, { secrets: { GALAXY_GOOGLE_CLIENT_SECRET: 'rotated-elsewhere' } });
    try {
      await storeManifest(app, manifestWith(galaxyGame));
      const response = await app.inject({ method: 'POST', url: '/v1/games/galaxy/auth/exchange', payload: { authorizationCode: 'code-ada' } });
      expect(response.statusCode).toBe(502);
      expect(response.json().error.code).toBe('provider-error');
    } finally {
      await app.close();
      await google.stop();
    }
  });

  it('answers 502 provider-error, without calling Google, when the client secret variable is not set', async () => {
    const google = await FakeGoogle.start();
    const app = await buildTestApp(database(), google.env, { secrets: {} });
    try {
      await storeManifest(app, manifestWith(galaxyGame));
      const response = await app.inject({ method: 'POST', url: '/v1/games/galaxy/auth/exchange', payload: { authorizationCode: 'code-ada' } });
      expect(response.statusCode).toBe(502);
      expect(response.json().error.message).toContain('GALAXY_GOOGLE_CLIENT_SECRET');
      expect(google.tokenRequests).toEqual([]);
    } finally {
      await app.close();
      await google.stop();
    }
  });
});

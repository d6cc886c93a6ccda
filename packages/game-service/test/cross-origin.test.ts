import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, type App } from '@playstack/server-kit';
import { createTestDatabase, type TestDatabase } from '@playstack/server-kit/testing';
import { loadGameConfig } from '../src/config.js';
import { buildTestApp } from './support/test-app.js';

const gameOrigin = 'https://play.example.com';

function preflight(app: App, url: string, origin: string) {
  return app.inject({
    method: 'OPTIONS',
    url,
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
  });
}

describe('cross-origin browser games', () => {
  let database: TestDatabase;
  let open: App;
  let closed: App;
  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    closed = await buildTestApp(database);
    open = await buildTestApp(database, { GAME_CORS_ORIGINS: `${gameOrigin}, https://beta.example.com/` });
  });
  afterAll(async () => {
    await open.close();
    await closed.close();
    await database.dispose();
  });

  it('answers a preflight from a configured origin for the game API', async () => {
    const response = await preflight(open, '/v1/games/demo/runs/score', gameOrigin);
    expect(response.statusCode).toBe(204);
    expect(response.headers['access-control-allow-origin']).toBe(gameOrigin);
    expect(String(response.headers['access-control-allow-headers'])).toContain('authorization');
    expect(String(response.headers['access-control-allow-headers'])).toContain('traceparent');
    expect(String(response.headers['access-control-allow-methods'])).toContain('POST');
    expect(response.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('marks game API responses readable by a configured origin, exposing the request id', async () => {
    const response = await open.inject({ method: 'POST', url: '/v1/games/demo/auth/exchange', headers: { origin: 'https://beta.example.com' }, payload: { authorizationCode: 'dev:ada' } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['access-control-allow-origin']).toBe('https://beta.example.com');
    expect(String(response.headers['access-control-expose-headers'])).toContain('x-request-id');
  });

  it('gives other origins nothing', async () => {
    const response = await open.inject({ method: 'POST', url: '/v1/games/demo/auth/exchange', headers: { origin: 'https://evil.example.com' }, payload: { authorizationCode: 'dev:ada' } });
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('never opens the admin pages or system endpoints to other origins', async () => {
    for (const url of ['/admin/login', '/healthz']) {
      const response = await open.inject({ method: 'GET', url, headers: { origin: gameOrigin } });
      expect(response.headers['access-control-allow-origin']).toBeUndefined();
    }
  });

  it('sends no CORS headers when GAME_CORS_ORIGINS is unset', async () => {
    const response = await closed.inject({ method: 'POST', url: '/v1/games/demo/auth/exchange', headers: { origin: gameOrigin }, payload: { authorizationCode: 'dev:ada' } });
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });

  it.each(['play.example.com', 'https://a.example.com,,', 'ftp://x'])('refuses GAME_CORS_ORIGINS=%s at boot', (value) => {
    expect(() => loadGameConfig({ GAME_CORS_ORIGINS: value })).toThrow(ConfigError);
  });

  it('accepts * for any origin', () => {
    expect(loadGameConfig({ GAME_CORS_ORIGINS: '*' }).GAME_CORS_ORIGINS).toBe('*');
  });
});

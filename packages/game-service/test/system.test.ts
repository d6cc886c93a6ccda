import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '@playstack/server-kit';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { buildTestApp } from './support/test-app.js';

describeEachDatabase('game service system endpoints', (database) => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp(database());
  });
  afterAll(async () => {
    await app.close();
  });

  it('answers /healthz with status ok', async () => {
    const response = await app.inject({ method: 'GET', url: '/healthz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok' });
  });

  it('answers /readyz with 200 once the database answers and the rank engine has loaded', async () => {
    // The rank engine loads in the background after boot; until then /readyz names it as failing.
    await expect
      .poll(async () => (await app.inject({ method: 'GET', url: '/readyz' })).json(), { timeout: 10_000 })
      .toEqual({ status: 'ready', failing: [], degraded: [] });
  });

  it('answers /version with name, version, commit and apiVersion 0.1.0', async () => {
    const response = await app.inject({ method: 'GET', url: '/version' });
    expect(response.json()).toMatchObject({ name: '@playstack/game-service', version: '0.1.0', apiVersion: '0.1.0' });
    expect(typeof response.json().commit).toBe('string');
  });
});

describe('game service with PostgreSQL unreachable', () => {
  it('is not started: the database is checked at boot', async () => {
    // Readiness at run time is covered by the kit's test; here boot itself must fail clearly.
    await expect(
      buildTestApp({ dialect: 'postgres', env: { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' }, dispose: async () => {} }),
    ).rejects.toThrow();
  });
});

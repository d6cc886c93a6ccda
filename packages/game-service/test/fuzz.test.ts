import { afterAll, beforeAll, expect, it } from 'vitest';
import type { App } from '@playstack/server-kit';
import {
  describeEachDatabase,
  fuzzOperations,
  fuzzRunsPerOperation,
  HttpBrowser,
  operationsOf,
  testDialects,
  type FuzzIdentity,
  type FuzzOperation,
  type FuzzSchema,
} from '@playstack/server-kit/testing';
import { buildTestApp } from './support/test-app.js';
import { recordFuzzFigures } from '../../../test/support/fuzz-figures.js';

// `npm test` drives each operation a few times; `npm run fuzz` sets FUZZ_RUNS (a total over both
// services and every database) for the long run.
const inTest = 8;
const operator = { email: 'fuzz@example.com', name: 'Fuzz', password: 'correct horse battery' };

/** The /admin forms (not in the OpenAPI document): fields as the pages post them, form or JSON. */
function adminForms(): FuzzOperation[] {
  const text: FuzzSchema = { type: 'string', maxLength: 1_000_000 };
  const form = (...fields: string[]): Record<string, FuzzSchema> => {
    const schema: FuzzSchema = { type: 'object', properties: Object.fromEntries(fields.map((f) => [f, text])), additionalProperties: text };
    return { 'application/x-www-form-urlencoded': schema, 'application/json': schema };
  };
  const query = (...names: string[]) => names.map((name) => ({ name, in: 'query' as const, schema: { type: 'string', maxLength: 2048 } }));
  const gameId = { name: 'gameId', in: 'path' as const, required: true, schema: { type: 'string' } };
  const admin = ['adminSession'];
  return [
    { method: 'GET', path: '/admin/login', parameters: query('next'), bodies: {}, security: [] },
    { method: 'POST', path: '/admin/login', parameters: [], bodies: form('email', 'password', 'next'), security: [] },
    { method: 'GET', path: '/admin/register', parameters: [], bodies: {}, security: [] },
    { method: 'POST', path: '/admin/register', parameters: [], bodies: form('email', 'name', 'password', 'invitation'), security: [] },
    { method: 'GET', path: '/admin/', parameters: [], bodies: {}, security: admin },
    { method: 'POST', path: '/admin/invitations', parameters: [], bodies: form('email'), security: admin },
    { method: 'GET', path: '/admin/games', parameters: [], bodies: {}, security: admin },
    { method: 'GET', path: '/admin/games/{gameId}', parameters: [gameId, ...query('period')], bodies: {}, security: admin },
    { method: 'GET', path: '/admin/games/{gameId}/runs', parameters: [gameId, ...query('status', 'player', 'before')], bodies: {}, security: admin },
    { method: 'GET', path: '/admin/manifest', parameters: [], bodies: {}, security: admin },
    { method: 'POST', path: '/admin/manifest', parameters: [], bodies: form('manifest', 'confirm'), security: admin },
    { method: 'GET', path: '/admin/adapters', parameters: [], bodies: {}, security: admin },
    { method: 'GET', path: '/admin/health', parameters: [], bodies: {}, security: admin },
    { method: 'GET', path: '/admin/assets/admin.css', parameters: [], bodies: {}, security: [] },
    { method: 'POST', path: '/admin/logout', parameters: [], bodies: form(), security: admin },
  ];
}

describeEachDatabase('fuzzing every operation of the game OpenAPI document and the /admin forms', (database) => {
  let app: App;
  let baseUrl: string;
  const admin = new HttpBrowser('');
  let adminCsrf = '';
  let accessToken = '';

  const formPost = (path: string, fields: Record<string, string>) =>
    admin.fetch(path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' }, body: new URLSearchParams(fields).toString() });
  /** Reads the session's CSRF token from a page's forms. */
  const readAdminCsrf = async () => {
    adminCsrf = /name="_csrf" value="([^"]+)"/.exec(await (await admin.fetch('/admin/')).text())?.[1] ?? '';
  };
  const adminSignIn = async () => {
    await (await admin.fetch('/admin/login')).arrayBuffer();
    const response = await formPost('/admin/login', { email: operator.email, password: operator.password, _csrf: admin.cookie('admin_form_csrf') ?? '' });
    if (response.status !== 303) throw new Error(`the fuzz operator could not sign in again: ${response.status}`);
    await readAdminCsrf();
  };
  const playerSignIn = async () => {
    const response = await fetch(`${baseUrl}/v1/games/demo/auth/exchange`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ authorizationCode: 'dev:fuzz' }) });
    if (response.status !== 200) throw new Error(`the fuzz player could not sign in: ${response.status} ${await response.text()}`);
    accessToken = ((await response.json()) as { accessToken: string }).accessToken;
  };

  beforeAll(async () => {
    // Limits high enough that the cases reach the handlers rather than the rate limiter.
    const unlimited = { GAME_AUTH_RATE_LIMIT_MAX: '1000000', GAME_PLAYER_RATE_LIMIT_MAX: '1000000', GAME_RUN_RATE_LIMIT_MAX: '1000000' };
    app = await buildTestApp(database(), unlimited);
    baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });
    admin.baseUrl = baseUrl;
    await (await admin.fetch('/admin/register')).arrayBuffer();
    const registered = await formPost('/admin/register', { ...operator, _csrf: admin.cookie('admin_form_csrf') ?? '' });
    expect(registered.status).toBe(303);
    await readAdminCsrf();
    await playerSignIn();
  });
  afterAll(async () => {
    await app.close();
  });

  it('answers generated bad input with 2xx-4xx, never 5xx, signed in and not', { timeout: 3_600_000 }, async () => {
    const document = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as Parameters<typeof operationsOf>[0];
    const operations = [...operationsOf(document), ...adminForms()];
    expect(operations.length).toBeGreaterThan(25);
    const identities: FuzzIdentity[] = [
      { name: 'nobody', appliesTo: (op) => op.security.length === 0, headers: () => ({}) },
      {
        name: 'a player',
        appliesTo: (op) => op.security.includes('playerToken'),
        headers: () => ({ authorization: `Bearer ${accessToken}` }),
        renew: async () => {
          const me = await fetch(`${baseUrl}/v1/games/demo/leaderboards/high-score/me`, { headers: { authorization: `Bearer ${accessToken}` } });
          if (me.status === 401) await playerSignIn();
        },
      },
      {
        name: 'a signed-in operator',
        appliesTo: (op) => op.security.includes('adminSession') || op.path.startsWith('/admin/login') || op.path.startsWith('/admin/register'),
        headers: () => ({ cookie: `admin_session=${admin.cookie('admin_session') ?? ''}; admin_form_csrf=${admin.cookie('admin_form_csrf') ?? ''}`, 'x-csrf-token': adminCsrf }),
        formFields: () => ({ _csrf: adminCsrf }),
        renew: async () => {
          const overview = await admin.fetch('/admin/', { headers: { accept: 'application/json' } });
          if (overview.status === 401) await adminSignIn();
        },
      },
    ];
    const runs = process.env.FUZZ_RUNS ? fuzzRunsPerOperation(operations.length, { defaultTotal: 100_000, shares: 2 * testDialects().length }) : inTest;
    const report = await fuzzOperations({
      baseUrl,
      operations,
      identities,
      runsPerOperation: runs,
      knownValues: { gameId: ['demo', 'tiles'], boardId: ['high-score', 'total-score', 'best-tile'], adapterId: ['score', 'replay-2048'], period: ['all', 'daily'], status: ['accepted', 'rejected'] },
    });
    recordFuzzFigures(`game-service [${database().dialect}]`, report);
    expect(report.serverErrors).toBe(0);
    expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
  });
});

import { afterAll, beforeAll, expect, it } from 'vitest';
import type { App } from '@playstack/server-kit';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { AdminBrowser } from './support/admin-browser-session.js';
import demoManifest from '../src/manifest/demo-manifest.json' with { type: 'json' };
import { bearer, devSignIn } from './support/identity-fixtures.js';
import { buildTestApp } from './support/test-app.js';

describeEachDatabase('odd input: NUL characters, lone surrogates, numbers that overflow', (database) => {
  let app: App;
  let operator: AdminBrowser;
  beforeAll(async () => {
    app = await buildTestApp(database());
    operator = new AdminBrowser(app);
    expect((await operator.register({ email: 'ops@example.com', name: 'Ops', password: 'correct horse battery' })).statusCode).toBe(303);
  });
  afterAll(async () => {
    await app.close();
  });

  const refused = (response: Awaited<ReturnType<App['inject']>>, field: RegExp) => {
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json().error).toMatchObject({ code: 'invalid-request', message: expect.stringMatching(field) });
  };

  it('refuses them in sign-in, run submissions and leaderboard queries with a 400 naming the field', async () => {
    const exchange = (code: string) => app.inject({ method: 'POST', url: '/v1/games/demo/auth/exchange', payload: { authorizationCode: code } });
    refused(await exchange('dev:a\u0000b'), /^body\.authorizationCode must not contain a NUL/);
    refused(await exchange('dev:\udc00'), /lone UTF-16 surrogate/);

    const player = await devSignIn(app, 'demo', 'odd');
    const submit = (payload: string) =>
      app.inject({ method: 'POST', url: '/v1/games/demo/runs/score', headers: { ...bearer(player.accessToken), 'content-type': 'application/json' }, payload });
    refused(await submit('{"runId":"run-00000001","payload":{"score":10,"durationMs":60000,"note":"a\\u0000b"}}'), /^body\.payload\.note /);
    refused(await submit('{"runId":"run-00000002","payload":{"score":1e400,"durationMs":60000}}'), /^body/);
    refused(await submit('{"runId":"run-00000003","payload":{"score":123456789012345678901234567890,"durationMs":60000}}'), /^body\.payload\.score must be between/);
    expect((await submit('{"runId":"run-00000004","payload":{"score":10,"durationMs":60000}}')).statusCode).toBe(200);

    const board = await app.inject({ method: 'GET', url: '/v1/games/demo/leaderboards/high-score?cursor=%00', headers: bearer(player.accessToken) });
    refused(board, /^querystring\.cursor /);
  });

  it('refuses them in the /admin forms and pages with a 400', async () => {
    await operator.get('/admin/');
    refused(await operator.post('/admin/invitations', { email: 'a\u0000@example.com' }, { accept: 'application/json' }), /^body\.email /);
    // A manifest posted as text: the NUL is only there once the text is parsed.
    const games = structuredClone(demoManifest.games);
    games[0]!.name = 'Demo\u0000';
    const manifest = await operator.post('/admin/manifest', { manifest: JSON.stringify({ ...demoManifest, games }) }, { accept: 'application/json' });
    expect(manifest.statusCode, manifest.body).toBe(400);
    expect(manifest.body).toContain('NUL');
    refused(await operator.get('/admin/games/demo/runs?player=%00', 'application/json'), /^querystring\.player /);
    refused(await operator.get('/admin/games/demo/runs?before=99999999999999999999', 'application/json'), /^querystring\.before /);
    refused(await new AdminBrowser(app).login('ops@example.com\u0000', 'correct horse battery'), /^body\.email /);
  });
});

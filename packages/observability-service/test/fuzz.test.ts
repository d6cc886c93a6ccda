import { afterAll, beforeAll, expect, it } from 'vitest';
import type { App } from '@playstack/server-kit';
import { describeEachDatabase, fuzzOperations, fuzzRunsPerOperation, HttpBrowser, operationsOf, testDialects, type FuzzIdentity } from '@playstack/server-kit/testing';
import { firstAdmin } from './support/browser-session.js';
import { buildTestApp } from './support/test-app.js';
import { recordFuzzFigures } from '../../../test/support/fuzz-figures.js';

// `npm test` drives each operation a few times; `npm run fuzz` sets FUZZ_RUNS (a total over both
// services and every database) for the long run.
const inTest = 8;

describeEachDatabase('fuzzing every operation of the observability OpenAPI document', (database) => {
  let app: App;
  let baseUrl: string;
  const dashboard = new HttpBrowser('');
  let csrfToken = '';
  let ingestionKey = '';

  const signIn = async () => {
    const response = await dashboard.postJson('/api/v1/auth/login', { email: firstAdmin.email, password: firstAdmin.password });
    if (response.status !== 200) throw new Error(`the fuzz user could not sign in again: ${response.status} ${await response.text()}`);
    csrfToken = ((await response.json()) as { csrfToken: string }).csrfToken;
  };

  beforeAll(async () => {
    // Limits high enough that the cases reach the handlers rather than the rate limiter.
    app = await buildTestApp(database(), { INGEST_RATE_LIMIT_PER_SECOND: '1000000' });
    baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });
    dashboard.baseUrl = baseUrl;
    const setup = await dashboard.postJson('/api/v1/auth/setup', firstAdmin);
    csrfToken = ((await setup.json()) as { csrfToken: string }).csrfToken;
    const key = await dashboard.postJson('/api/v1/admin/keys', { name: 'fuzz' }, { 'x-csrf-token': csrfToken });
    ingestionKey = ((await key.json()) as { key: string }).key;
  });
  afterAll(async () => {
    await app.close();
  });

  it('answers generated bad input with 2xx-4xx, never 5xx, signed in and not', { timeout: 3_600_000 }, async () => {
    const document = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as Parameters<typeof operationsOf>[0];
    const operations = operationsOf(document);
    expect(operations.length).toBeGreaterThan(40);
    const identities: FuzzIdentity[] = [
      { name: 'nobody', appliesTo: (op) => op.security.length === 0, headers: () => ({}) },
      {
        name: 'a signed-in admin',
        appliesTo: (op) => op.security.includes('session'),
        headers: () => ({ cookie: `obs_session=${dashboard.cookie('obs_session') ?? ''}`, 'x-csrf-token': csrfToken }),
        renew: async () => {
          const session = await dashboard.fetch('/api/v1/auth/session');
          if (session.status !== 200) await signIn();
        },
      },
      { name: 'an ingestion key', appliesTo: (op) => op.security.includes('ingestionKey'), headers: () => ({ authorization: `Bearer ${ingestionKey}` }) },
    ];
    const runs = process.env.FUZZ_RUNS ? fuzzRunsPerOperation(operations.length, { defaultTotal: 100_000, shares: 2 * testDialects().length }) : inTest;
    const report = await fuzzOperations({ baseUrl, operations, identities, runsPerOperation: runs, knownValues: { service: ['checkout', 'fuzz'] } });
    recordFuzzFigures(`observability-service [${database().dialect}]`, report);
    expect(report.serverErrors).toBe(0);
    // Still up and answering.
    expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
  });
});

import { afterAll, beforeAll, expect, it } from 'vitest';
import type { App } from '@playstack/server-kit';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { asBrowser, setUpFirstAdmin, type BrowserSession } from './support/browser-session.js';
import { buildTestApp } from './support/test-app.js';

const legacyKey = 'legacy-service-api-key-for-ingest';

function envelope() {
  return {
    protocol: 1,
    sentAt: new Date().toISOString(),
    resource: { service: 'checkout', environment: 'test' },
    occurrences: [
      {
        traceId: '0af7651916cd43dd8448eb211c80319c',
        spanId: 'b7ad6b7169203331',
        operation: 'GET /cart',
        kind: 'server',
        startedAt: new Date().toISOString(),
        durationMs: 12,
        status: 'ok',
      },
    ],
  };
}

describeEachDatabase('ingestion keys at the ingest endpoint', (database) => {
  let app: App;
  let admin: BrowserSession;
  const ingest = (authorization: string | undefined) =>
    app.inject({ method: 'POST', url: '/api/v1/ingest', headers: authorization ? { authorization } : {}, payload: envelope() });
  const createKey = async (name: string) => (await asBrowser(app, admin, { method: 'POST', url: '/api/v1/admin/keys', payload: { name } })).json();

  beforeAll(async () => {
    app = await buildTestApp(database(), { SERVICE_API_KEY: legacyKey });
    admin = await setUpFirstAdmin(app);
  });
  afterAll(async () => {
    await app.close();
  });

  it('accepts envelopes sent with a created key', async () => {
    const { key } = await createKey('checkout');
    const response = await ingest(`Bearer ${key}`);
    expect(response.statusCode).toBe(202);
  });

  it('accepts two active keys and refuses one the moment it is revoked', async () => {
    const old = await createKey('old');
    const next = await createKey('next');
    expect((await ingest(`Bearer ${old.key}`)).statusCode).toBe(202);
    expect((await ingest(`Bearer ${next.key}`)).statusCode).toBe(202);
    await asBrowser(app, admin, { method: 'DELETE', url: `/api/v1/admin/keys/${old.id}` });
    const refused = await ingest(`Bearer ${old.key}`);
    expect(refused.statusCode).toBe(401);
    expect(refused.json().error.code).toBe('unauthorized');
    expect((await ingest(`Bearer ${next.key}`)).statusCode).toBe(202);
  });

  it('refuses a missing or unknown key', async () => {
    expect((await ingest(undefined)).statusCode).toBe(401);
    expect((await ingest('Bearer obsk_00000000_not-a-real-key-at-all')).statusCode).toBe(401);
  });

  it('accepts the legacy SERVICE_API_KEY while set, and refuses it once unset', async () => {
    expect((await ingest(`Bearer ${legacyKey}`)).statusCode).toBe(202);
    const withoutLegacy = await buildTestApp(database());
    try {
      const response = await withoutLegacy.inject({ method: 'POST', url: '/api/v1/ingest', headers: { authorization: `Bearer ${legacyKey}` }, payload: envelope() });
      expect(response.statusCode).toBe(401);
    } finally {
      await withoutLegacy.close();
    }
  });
});

import { afterAll, beforeAll, expect, it } from 'vitest';
import type { App } from '@playstack/server-kit';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { asBrowser, setUpFirstAdmin, type BrowserSession } from './support/browser-session.js';
import { envelope, minimalOccurrence } from './support/envelopes.js';
import { encodeTraceRequest } from './support/otlp-requests.js';
import { buildTestApp } from './support/test-app.js';

const key = 'odd-input-key-0123456789abcdef';
const odd = { nul: 'a\u0000b', surrogate: 'x\ud800y' };

describeEachDatabase('odd input: NUL characters, lone surrogates, numbers that overflow', (database) => {
  let app: App;
  let admin: BrowserSession;
  beforeAll(async () => {
    app = await buildTestApp(database(), { SERVICE_API_KEY: key });
    admin = await setUpFirstAdmin(app);
  });
  afterAll(async () => {
    await app.close();
  });

  it('refuses them in query strings and JSON bodies with a 400 naming the field', async () => {
    for (const url of ['/api/v1/services?service=%00', '/api/v1/database?service=a%00b', '/api/v1/occurrences?operation=x%00', '/api/v1/logs?q=%00', '/api/v1/occurrences?limit=99999999999999999999999']) {
      const response = await asBrowser(app, admin, { method: 'GET', url });
      expect(response.statusCode, url).toBe(400);
      expect(response.json().error.message, url).toMatch(/^querystring\.\w+ /);
    }
    const key = await asBrowser(app, admin, { method: 'POST', url: '/api/v1/admin/keys', payload: { name: odd.nul } });
    expect(key.statusCode).toBe(400);
    expect(key.json().error.message).toBe('body.name must not contain a NUL character (\\u0000)');
    const retention = await asBrowser(app, admin, { method: 'PUT', url: '/api/v1/admin/retention', headers: { 'content-type': 'application/json' }, payload: '{"days":1e400}' });
    expect(retention.statusCode).toBe(400);
  });

  it('refuses them in protocol v1 envelopes with a 400', async () => {
    for (const text of [odd.nul, odd.surrogate]) {
      const response = await app.inject({ method: 'POST', url: '/api/v1/ingest', headers: { authorization: `Bearer ${key}` }, payload: envelope([minimalOccurrence(new Date().toISOString(), { operation: text })]) });
      expect(response.statusCode).toBe(400);
      expect(response.json().error.message).toMatch(/^body\.occurrences\.0\.operation must not contain /);
    }
  });

  it('answers OTLP spans carrying them (JSON and protobuf) without a 5xx', async () => {
    for (const encoding of ['json', 'protobuf'] as const) {
      for (const text of [odd.nul, odd.surrogate]) {
        const body = encodeTraceRequest(
          {
            resourceSpans: [
              {
                resource: { attributes: [{ key: 'service.name', value: { stringValue: `svc${text}` } }] },
                scopeSpans: [{ spans: [{ traceId: '5b8efff798038103d269b633813fc60c', spanId: 'eee19b7ec3c1b174', name: text, startTimeUnixNano: '1', endTimeUnixNano: '2', attributes: [{ key: text, value: { stringValue: text } }] }] }],
              },
            ],
          },
          encoding,
        );
        const response = await app.inject({ method: 'POST', url: '/v1/traces', headers: { authorization: `Bearer ${key}`, 'content-type': encoding === 'json' ? 'application/json' : 'application/x-protobuf' }, payload: body });
        expect(response.statusCode, `${encoding} ${JSON.stringify(text)}: ${response.body}`).toBeLessThan(500);
      }
    }
  });
});

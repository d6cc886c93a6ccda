import { afterAll, beforeAll, expect, it } from 'vitest';
import type { App } from '@playstack/server-kit';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { asBrowser, setUpFirstAdmin, type BrowserSession } from './support/browser-session.js';
import { jsonSpan } from './support/otlp-requests.js';
import { buildTestApp } from './support/test-app.js';

const key = 'attribute-filter-key-0123456789';
const string = (value: string) => ({ stringValue: value });

/** Two hosts of one service; spans with attributes of each kind. */
function request() {
  const resource = (host: string) => ({
    attributes: [
      { key: 'service.name', value: string('orders') },
      { key: 'host.name', value: string(host) },
    ],
  });
  const span = (name: string, attributes: Array<{ key: string; value: Record<string, unknown> }>) => jsonSpan({ name, attributes });
  return {
    resourceSpans: [
      {
        resource: resource('web-3'),
        scopeSpans: [
          {
            spans: [
              span('three items', [{ key: 'order.items', value: { intValue: '3' } }, { key: 'order.express', value: { boolValue: true } }]),
              span('gift', [{ key: 'order.kind', value: string('gift') }]),
            ],
          },
        ],
      },
      { resource: resource('web-4'), scopeSpans: [{ spans: [span('three as text', [{ key: 'order.items', value: string('3') }]), span('plain', [])] }] },
    ],
  };
}

describeEachDatabase('occurrences filtered by attr.<key>=<value>: span and resource attributes', (database) => {
  let app: App;
  let session: BrowserSession;
  beforeAll(async () => {
    app = await buildTestApp(database(), { SERVICE_API_KEY: key });
    session = await setUpFirstAdmin(app);
    const sent = await app.inject({ method: 'POST', url: '/v1/traces', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, payload: request() });
    expect(sent.statusCode).toBe(200);
  });
  afterAll(async () => {
    await app.close();
  });

  const operations = async (query: string) => {
    const response = await asBrowser(app, session, { url: `/api/v1/occurrences?${query}` });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as { items: Array<{ operation: string }>; total: number };
    expect(body.total).toBe(body.items.length);
    return body.items.map((item) => item.operation).sort();
  };

  it('finds spans by a resource attribute', async () => {
    expect(await operations('attr.host.name=web-3')).toEqual(['gift', 'three items']);
  });

  it('finds spans by a span attribute, numbers and booleans as written', async () => {
    expect(await operations('attr.order.kind=gift')).toEqual(['gift']);
    expect(await operations('attr.order.items=3')).toEqual(['three as text', 'three items']);
    expect(await operations('attr.order.express=true')).toEqual(['three items']);
    expect(await operations('attr.order.express=false')).toEqual([]);
  });

  it('combines attribute filters with each other and with the other filters', async () => {
    expect(await operations('attr.order.items=3&attr.host.name=web-4')).toEqual(['three as text']);
    expect(await operations('attr.order.items=3&service=orders&status=ok')).toEqual(['three as text', 'three items']);
    expect(await operations('attr.order.items=3&service=elsewhere')).toEqual([]);
  });

  it('refuses more than five attribute filters and malformed names with 400', async () => {
    const six = Array.from({ length: 6 }, (_, i) => `attr.k${i}=v`).join('&');
    const tooMany = await asBrowser(app, session, { url: `/api/v1/occurrences?${six}` });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().error.message).toMatch(/At most 5 attr/);
    const quoted = await asBrowser(app, session, { url: `/api/v1/occurrences?${encodeURIComponent('attr.a"b')}=1` });
    expect(quoted.statusCode).toBe(400);
    expect(quoted.json().error.code).toBe('invalid-request');
  });
});

import { afterAll, beforeAll, expect, it } from 'vitest';
import type { App } from '@playstack/server-kit';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { asBrowser, setUpFirstAdmin, type BrowserSession } from './support/browser-session.js';
import { envelope, minimalOccurrence } from './support/envelopes.js';
import { jsonSpan } from './support/otlp-requests.js';
import { spelledVerbatim } from '../src/query/attribute-filter.js';
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

describeEachDatabase('attr.<key>=<value> on values JSON escapes or spells otherwise (the substring test before parsing)', (database) => {
  let app: App;
  let session: BrowserSession;
  // Each span carries one attribute; `decoy` carries every value under another key.
  const values: Record<string, string | number | boolean> = {
    quoted: 'say "hi"',
    path: 'C:\\temp\\new',
    drink: 'café ☕',
    game: '🎮 ranked',
    lines: 'first\nsecond',
    tiny: 1e-7,
    ratio: 0.5,
    flag: false,
    plain: 'eu-west',
  };
  beforeAll(async () => {
    app = await buildTestApp(database(), { SERVICE_API_KEY: key });
    session = await setUpFirstAdmin(app);
    const now = Date.now();
    const occurrences = Object.entries(values).map(([name, value], index) =>
      minimalOccurrence(new Date(now - 1000 - index).toISOString(), { operation: name, attributes: { [name]: value } }),
    );
    occurrences.push(minimalOccurrence(new Date(now - 500).toISOString(), { operation: 'decoy', attributes: Object.fromEntries(Object.entries(values).map(([name, value]) => [`other.${name}`, String(value)])) }));
    const sent = await app.inject({ method: 'POST', url: '/api/v1/ingest', headers: { authorization: `Bearer ${key}` }, payload: envelope(occurrences, { service: 'escapes', environment: 'production' }) });
    expect(sent.statusCode, sent.body).toBe(202);
  });
  afterAll(async () => {
    await app.close();
  });

  it('finds each value by its key only, as sent or as the number it spells', async () => {
    const operations = async (name: string, value: string) => {
      const response = await asBrowser(app, session, { url: `/api/v1/occurrences?service=escapes&${encodeURIComponent(`attr.${name}`)}=${encodeURIComponent(value)}` });
      expect(response.statusCode, response.body).toBe(200);
      return (response.json() as { items: Array<{ operation: string }> }).items.map((item) => item.operation);
    };
    for (const [name, value] of Object.entries(values)) if (name !== 'tiny') expect(await operations(name, String(value)), name).toEqual([name]);
    // A number JSON writes as an exponent matches as each database spells it (SQLite as stored, PostgreSQL in full).
    const postgres = database().dialect === 'postgres';
    expect(await operations('tiny', '1e-7')).toEqual(postgres ? [] : ['tiny']);
    expect(await operations('tiny', '0.0000001')).toEqual(postgres ? ['tiny'] : []);
    expect(await operations('ratio', '0.50')).toEqual([]);
    expect(await operations('plain', 'eu')).toEqual([]);
    expect(await operations('other.plain', 'eu-west')).toEqual(['decoy']);
  });
});

it('spells a value verbatim in JSON.stringify text unless JSON escapes it, it is compound, or JSON writes it as an exponent', () => {
  for (const value of ['eu-west', 'café ☕', '🎮', '3', '0.5', '-12', 'true', '', ' ', '1e5', '100000000000000000000']) expect(spelledVerbatim(value), value).toBe(true);
  for (const value of ['say "hi"', 'C:\\temp', 'a\nb', '\u0001', '\ud800', 'x\udc00', '[1,2]', '{"a":1}', '1e21', '1000000000000000000000', '0.0000001', '-1e-7']) expect(spelledVerbatim(value), value).toBe(false);
  // Where the value is verbatim, every stored text that holds it as a value holds it literally.
  for (const value of ['eu-west', 'café ☕', '🎮', '3', '0.5', 'true']) expect(JSON.stringify({ k: value }).includes(value)).toBe(true);
});

import { afterAll, beforeAll, expect, it } from 'vitest';
import fc from 'fast-check';
import type { App } from '@playstack/server-kit';
import { createTestDatabase, type TestDatabase } from '@playstack/server-kit/testing';
import { encodeTraceRequest } from './support/otlp-requests.js';
import { buildTestApp } from './support/test-app.js';

const key = 'otlp-hostile-key-0123456789';
let database: TestDatabase;
let app: App;

beforeAll(async () => {
  database = await createTestDatabase('sqlite');
  app = await buildTestApp(database, { SERVICE_API_KEY: key, INGEST_RATE_LIMIT_PER_SECOND: '1000000' });
});
afterAll(async () => {
  await app.close();
  await database.dispose();
});

const post = (body: Buffer, contentType: string) =>
  app.inject({ method: 'POST', url: '/v1/traces', headers: { authorization: `Bearer ${key}`, 'content-type': contentType }, payload: body });

/** Span members with values of every JSON type, where the decoder and the mapping expect others. */
const hostileSpan = fc.record(
  {
    traceId: fc.oneof(fc.string(), fc.constant('5b8efff798038103d269b633813fc60c')),
    spanId: fc.oneof(fc.string(), fc.constant('eee19b7ec3c1b174')),
    parentSpanId: fc.string(),
    name: fc.oneof(fc.string(), fc.jsonValue()),
    kind: fc.oneof(fc.integer({ min: -5, max: 20 }), fc.string()),
    startTimeUnixNano: fc.oneof(fc.jsonValue(), fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String)),
    endTimeUnixNano: fc.oneof(fc.jsonValue(), fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String)),
    attributes: fc.array(fc.record({ key: fc.oneof(fc.string(), fc.jsonValue()), value: fc.jsonValue() }), { maxLength: 4 }),
    events: fc.array(fc.record({ name: fc.jsonValue(), timeUnixNano: fc.jsonValue(), attributes: fc.jsonValue() }), { maxLength: 3 }),
    links: fc.array(fc.record({ traceId: fc.string(), spanId: fc.string() }), { maxLength: 2 }),
    status: fc.jsonValue(),
  },
  { requiredKeys: [] },
);

it('answers hostile OTLP/JSON with 200 or a 4xx Status, never a 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(fc.oneof(fc.jsonValue(), fc.record({ resourceSpans: fc.array(fc.record({ scopeSpans: fc.array(fc.record({ spans: fc.array(hostileSpan, { maxLength: 3 }) })) })) })), async (request) => {
      const response = await post(Buffer.from(JSON.stringify(request)), 'application/json');
      expect(response.statusCode, response.body).toBeLessThan(500);
      if (response.statusCode !== 200) expect(response.json()).toMatchObject({ code: expect.any(Number), message: expect.any(String) });
    }),
    { numRuns: 150 },
  );
});

it('answers random and truncated protobuf with 200 or 400, never a 5xx', async () => {
  const valid = encodeTraceRequest({ resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: '5b8efff798038103d269b633813fc60c', spanId: 'eee19b7ec3c1b174', name: 'x' }] }] }] }, 'protobuf');
  await fc.assert(
    fc.asyncProperty(fc.oneof(fc.uint8Array({ maxLength: 200 }), fc.nat({ max: valid.length }).map((cut) => valid.subarray(0, cut))), async (bytes) => {
      const response = await post(Buffer.from(bytes), 'application/x-protobuf');
      expect([200, 400]).toContain(response.statusCode);
    }),
    { numRuns: 300 },
  );
});

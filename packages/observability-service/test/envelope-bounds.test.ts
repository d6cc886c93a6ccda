import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, type App } from '@playstack/server-kit';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { envelope, fullOccurrence, newTraceId } from './support/envelopes.js';
import { buildTestApp } from './support/test-app.js';

const legacyKey = 'bounds-test-key-0123456789';
const now = Date.parse('2026-11-21T10:00:00.000Z');
const startedAt = '2026-11-21T09:59:00.000Z';
const text = (length: number) => 'é'.repeat(length);

/** Sets a member at a dotted path of a copy of the occurrence (undefined deletes it). */
function withMember(path: string, value: unknown): Record<string, unknown> {
  const occurrence = structuredClone(fullOccurrence(startedAt)) as Record<string, any>;
  const keys = path.split('.');
  let node = occurrence;
  for (const key of keys.slice(0, -1)) node = node[key];
  if (value === undefined) delete node[keys.at(-1)!];
  else node[keys.at(-1)!] = value;
  return occurrence;
}

/** [member, longest accepted, one over the bound]: strings cut to their bound, not refused. */
const truncatedStrings: Array<[string, number]> = [
  ['id', 64],
  ['operation', 256],
  ['tenantId', 128],
  ['http.method', 16],
  ['http.route', 512],
  ['db.system', 64],
  ['db.statement', 8192],
  ['db.operation', 64],
  ['peer.service', 128],
  ['peer.address', 256],
  ['error.type', 256],
  ['error.message', 4096],
  ['error.stack', 16384],
];

/** [member, a value refused]. */
const refusedValues: Array<[string, unknown]> = [
  ['traceId', undefined],
  ['traceId', 'a'.repeat(31)],
  ['traceId', 'a'.repeat(33)],
  ['traceId', 'g'.repeat(32)],
  ['traceId', '0'.repeat(32)],
  ['spanId', undefined],
  ['spanId', 'b'.repeat(15)],
  ['spanId', '0'.repeat(16)],
  ['parentSpanId', 'c'.repeat(17)],
  ['operation', undefined],
  ['operation', ''],
  ['operation', 7],
  ['kind', undefined],
  ['kind', 'SERVER'],
  ['startedAt', undefined],
  ['startedAt', '2026-11-21'],
  ['startedAt', 'soon'],
  ['startedAt', '2026-11-21T11:00:00.001Z'],
  ['startedAt', '2026-11-07T09:59:59.999Z'],
  ['durationMs', undefined],
  ['durationMs', -0.001],
  ['durationMs', 86_400_000.001],
  ['durationMs', '12'],
  ['status', undefined],
  ['status', 'unset'],
  ['tenantId', ''],
  ['http', { route: '/x' }],
  ['http.statusCode', 99],
  ['http.statusCode', 600],
  ['http.statusCode', 200.5],
  ['db', { statement: 'SELECT 1' }],
  ['db.statement', ''],
  ['peer', {}],
  ['error', 'boom'],
  ['attributes', { nested: { a: 1 } }],
  ['attributes', { list: [1, 2] }],
  ['attributes', { empty: null }],
  ['attributes', Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, i]))],
  ['attributes', { ['k'.repeat(129)]: 1 }],
  ['attributes', { '': 1 }],
];

/** [member, an edge value accepted as it is]. */
const acceptedValues: Array<[string, unknown]> = [
  ['traceId', 'ABCDEF0123456789abcdef0123456789'],
  ['parentSpanId', undefined],
  ['durationMs', 0],
  ['durationMs', 86_400_000],
  ['startedAt', '2026-11-21T10:59:59.999+00:00'],
  ['startedAt', '2026-11-21T11:59:59.000+01:00'],
  ['startedAt', '2026-11-07T10:00:00.000Z'],
  ['http.statusCode', 100],
  ['http.statusCode', 599],
  ['http.route', undefined],
  ['peer', { address: '10.0.0.1' }],
  ['error', {}],
  ['error.message', ''],
  ['attributes', Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`k${i}`, i % 2 === 0 ? `v${i}` : i]))],
  ['attributes', { ['k'.repeat(128)]: true }],
];

describeEachDatabase('envelope field bounds', (database) => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp(database(), { SERVICE_API_KEY: legacyKey, INGEST_RATE_LIMIT_PER_SECOND: '100000' }, { clock: new ManualClock(now) });
  });
  afterAll(async () => {
    await app.close();
  });

  const send = async (occurrences: unknown[], resource?: Record<string, unknown>) => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/ingest',
      headers: { authorization: `Bearer ${legacyKey}`, 'content-type': 'application/json' },
      payload: JSON.stringify(envelope(occurrences, resource)),
    });
    expect(response.statusCode).toBe(202);
    return response.json();
  };

  describe('strings over their bound are truncated, not refused', () => {
    it.each(truncatedStrings)('%s keeps %i characters', async (path, bound) => {
      const atBound = await send([withMember(path, text(bound))]);
      expect(atBound).toMatchObject({ accepted: { occurrences: 1 }, truncated: { strings: 0 } });
      const over = await send([withMember(path, text(bound + 1))]);
      expect(over).toMatchObject({ accepted: { occurrences: 1 }, truncated: { strings: 1 } });
    });

    it('cuts attribute string values at 1024 characters and counts each cut', async () => {
      const traceId = newTraceId();
      const body = await send([withMember('attributes', { a: text(1025), b: text(1024), c: text(2000) })].map((o) => ({ ...o, traceId })));
      expect(body.truncated).toEqual({ strings: 2 });
      const row = await app.database.db.selectFrom('occurrences').select('attributes').where('trace_id', '=', traceId).executeTakeFirstOrThrow();
      expect(JSON.parse(row.attributes!)).toEqual({ a: text(1024), b: text(1024), c: text(1024) });
    });

    it('stores the truncated value, cut at a code point boundary', async () => {
      const traceId = newTraceId();
      await send([{ ...withMember('operation', `${'x'.repeat(255)}😀😀`), traceId }]);
      const row = await app.database.db.selectFrom('occurrences').select('operation').where('trace_id', '=', traceId).executeTakeFirstOrThrow();
      expect(row.operation).toBe(`${'x'.repeat(255)}😀`);
    });

    it.each([
      ['service', 128],
      ['environment', 64],
      ['version', 64],
      ['instance', 128],
    ])('resource.%s keeps %i characters', async (member, bound) => {
      const resource: Record<string, unknown> = { service: 'bounds', environment: 'production', [member]: text(bound + 1) };
      expect(await send([fullOccurrence(startedAt)], resource)).toMatchObject({ accepted: { occurrences: 1 }, truncated: { strings: 1 } });
    });
  });

  it.each(refusedValues)('refuses an occurrence whose %s is %j, naming the member', async (path, value) => {
    const body = await send([fullOccurrence(startedAt), withMember(path, value)]);
    expect(body.accepted).toEqual({ occurrences: 1, logs: 0 });
    expect(body.rejected).toEqual({ occurrences: 1, logs: 0 });
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0].index).toBe(1);
    expect(body.errors[0].message).toContain(path.split('.')[0]);
  });

  it.each(acceptedValues)('accepts an occurrence whose %s is %j', async (path, value) => {
    expect(await send([withMember(path, value)])).toMatchObject({ accepted: { occurrences: 1 }, rejected: { occurrences: 0 }, truncated: { strings: 0 } });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, type App } from '@playstack/server-kit';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { errorFingerprint } from '../src/errors/error-fingerprint.js';
import { asBrowser, firstAdmin, invitedUser, setUpFirstAdmin, signIn, type BrowserSession } from './support/browser-session.js';
import { envelope, minimalOccurrence, newSpanId, newTraceId } from './support/envelopes.js';
import { databaseMigratedUpTo, insertRow } from './support/legacy-database.js';
import { jsonSpan, jsonTraceRequest } from './support/otlp-requests.js';
import { buildTestApp } from './support/test-app.js';

const key = 'error-groups-test-key-0123456789';
const iso = (ms: number) => new Date(ms).toISOString();
const chargeStack = (line: number) =>
  `CardDeclined: card declined\n    at charge (/srv/app/src/billing/charge.ts:${line}:7)\n    at handle (/srv/app/node_modules/express/lib/router.js:42:3)`;
const refundStack = 'CardDeclined: card declined\n    at refund (/srv/app/src/billing/refund.ts:12:3)\n    at handle (/srv/app/node_modules/express/lib/router.js:42:3)';

/** A protocol v1 error occurrence of `service`, started `agoMs` before now. */
function errorOccurrence(agoMs: number, error: { type?: string; message?: string; stack?: string }, overrides: Record<string, unknown> = {}) {
  return minimalOccurrence(iso(Date.now() - agoMs), { operation: 'POST /charge', kind: 'server', status: 'error', error, ...overrides });
}

describeEachDatabase('errors grouped by fingerprint', (database) => {
  let app: App;
  let admin: BrowserSession;
  let member: BrowserSession;
  const ingest = async (occurrences: unknown[], service = 'checkout') => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/ingest',
      headers: { authorization: `Bearer ${key}` },
      payload: envelope(occurrences, { service, environment: 'production' }),
    });
    expect(response.statusCode, response.body).toBe(202);
  };
  const get = async (url: string, session = member) => {
    const response = await asBrowser(app, session, { method: 'GET', url });
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  };
  const setStatus = (groupId: string, status: string, session = member) =>
    asBrowser(app, session, { method: 'POST', url: `/api/v1/errors/${groupId}/status`, payload: { status } });

  beforeAll(async () => {
    app = await buildTestApp(database(), { SERVICE_API_KEY: key });
    admin = await setUpFirstAdmin(app);
    member = await invitedUser(app, admin, 'member@example.com');
  });
  afterAll(async () => {
    await app.close();
  });

  it('puts the same error with different ids in one group, from protocol v1 and OTLP alike, and a different top frame in another', async () => {
    const charged = errorOccurrence(5000, { type: 'CardDeclined', message: "card 4242 of user 'alice' declined (request 9f1c2e3a4b)", stack: chargeStack(10) }, { tenantId: 'acme' });
    await ingest([
      errorOccurrence(9000, { type: 'CardDeclined', message: "card 1111 of user 'bob' declined (request 7a7b7c7d8e)", stack: chargeStack(11) }, { tenantId: 'globex' }),
      errorOccurrence(7000, { type: 'CardDeclined', message: "card 5555 of user 'carol' declined (request 0d0e0f1a2b)", stack: chargeStack(12) }, { tenantId: 'acme' }),
      errorOccurrence(6000, { type: 'CardDeclined', message: "card 5555 of user 'carol' declined (request 0d0e0f1a2b)", stack: refundStack }),
      // Not errors: an ok span carrying error details, and an error status without any.
      errorOccurrence(6000, { type: 'CardDeclined', message: 'card 1 declined', stack: chargeStack(1) }, { status: 'ok' }),
      minimalOccurrence(iso(Date.now() - 6000), { status: 'error' }),
    ]);
    await ingest([charged]);
    const start = BigInt(Date.now() - 3000) * 1_000_000n;
    const otlp = jsonSpan({
      kind: 2,
      startTimeUnixNano: String(start),
      endTimeUnixNano: String(start + 1_000_000n),
      status: { code: 2 },
      events: [
        {
          name: 'exception',
          timeUnixNano: String(start),
          attributes: [
            { key: 'exception.type', value: { stringValue: 'CardDeclined' } },
            { key: 'exception.message', value: { stringValue: "card 9999 of user 'dave' declined (request 1234abcdef)" } },
            { key: 'exception.stacktrace', value: { stringValue: chargeStack(99) } },
          ],
        },
      ],
    });
    const otlpResponse = await app.inject({
      method: 'POST',
      url: '/v1/traces',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: jsonTraceRequest([otlp], 'checkout'),
    });
    expect(otlpResponse.statusCode, otlpResponse.body).toBe(200);

    const list = await get('/api/v1/errors?service=checkout');
    expect(list.items).toHaveLength(2);
    const [latest, older] = list.items;
    const expectedId = errorFingerprint('checkout', { type: 'CardDeclined', message: "card 1 of user 'x' declined (request 0a0b0c0d0e)", stack: chargeStack(1) })!.groupId;
    expect(latest).toMatchObject({
      groupId: expectedId,
      service: 'checkout',
      type: 'CardDeclined',
      message: 'card ? of user ? declined (request ?)',
      topFrame: 'charge (billing/charge.ts)',
      exampleMessage: "card 9999 of user 'dave' declined (request 1234abcdef)",
      status: 'open',
      count: 4,
      countInRange: 4,
      tenantsAffected: 2,
      exampleTrace: { traceId: otlp.traceId, spanId: otlp.spanId },
    });
    expect(latest.trend.reduce((sum: number, n: number) => sum + n, 0)).toBe(4);
    expect(latest.trend).toHaveLength(list.trend.buckets);
    const week = await get(`/api/v1/errors?service=checkout&from=${iso(Date.now() - 7 * 86_400_000)}`);
    expect(week.trend.intervalMs).toBe(6 * 3_600_000);
    expect(week.items[0].trend).toHaveLength(week.trend.buckets);
    expect(week.items[0].trend.reduce((sum: number, n: number) => sum + n, 0)).toBe(4);
    expect(week.items[0].trend.filter((n: number) => n > 0).length).toBeGreaterThanOrEqual(1);
    expect(older).toMatchObject({ topFrame: 'refund (billing/refund.ts)', count: 1, tenantsAffected: 0, message: 'card ? of user ? declined (request ?)' });

    const detail = await get(`/api/v1/errors/${expectedId}`);
    expect(detail.recentOccurrences.map((occurrence: { spanId: string }) => occurrence.spanId)).toContain(charged.spanId);
    expect(detail.recentOccurrences).toHaveLength(4);
    expect(detail.recentOccurrences.map((occurrence: { errorGroupId: string }) => occurrence.errorGroupId)).toEqual([expectedId, expectedId, expectedId, expectedId]);
    expect(detail.environments).toContainEqual({ environment: 'production', count: 3 });
    expect(detail.countInRange).toBe(4);
    expect(detail.tenants).toEqual([
      { tenantId: 'acme', count: 2, lastSeen: charged.startedAt },
      { tenantId: 'globex', count: 1, lastSeen: expect.any(String) },
    ]);
    expect(detail.trend.reduce((sum: number, bucket: { count: number }) => sum + bucket.count, 0)).toBe(4);
    await get(`/api/v1/traces/${detail.exampleTrace.traceId}`);
    expect((await get('/api/v1/errors?environment=staging')).items).toEqual([]);
    expect((await get(`/api/v1/errors?service=checkout&from=${iso(Date.now() - 4 * 3_600_000)}&to=${iso(Date.now() - 2 * 3_600_000)}`)).items).toEqual([]);
  });

  it('marks a resolved group regressed when it occurs again, and keeps an ignored one ignored', async () => {
    const error = { type: 'TimeoutError', message: 'upstream timed out after 3000 ms', stack: 'TimeoutError: upstream\n    at fetchQuote (/srv/app/src/quotes/client.ts:5:1)' };
    await ingest([errorOccurrence(60_000, error), errorOccurrence(60_000, { ...error, type: 'IgnoredError' })], 'quotes');
    const groups = (await get('/api/v1/errors?service=quotes')).items as Array<{ groupId: string; type: string }>;
    const timeout = groups.find((group) => group.type === 'TimeoutError')!.groupId;
    const ignored = groups.find((group) => group.type === 'IgnoredError')!.groupId;

    const resolved = await setStatus(timeout, 'resolved');
    expect(resolved.statusCode, resolved.body).toBe(200);
    expect(resolved.json()).toMatchObject({ groupId: timeout, status: 'resolved' });
    expect((await setStatus(ignored, 'ignored', admin)).statusCode).toBe(200);
    expect((await get('/api/v1/errors?service=quotes&status=resolved')).items.map((group: { groupId: string }) => group.groupId)).toEqual([timeout]);
    expect((await get('/api/v1/errors?service=quotes&status=unresolved')).items).toEqual([]);

    // A late arrival that started before the resolution does not reopen it; a new occurrence does.
    await ingest([errorOccurrence(30_000, error)], 'quotes');
    expect((await get(`/api/v1/errors/${timeout}`)).status).toBe('resolved');
    await ingest([errorOccurrence(-1000, { ...error, message: 'upstream timed out after 5000 ms' }), errorOccurrence(-1000, { ...error, type: 'IgnoredError' })], 'quotes');
    expect(await get(`/api/v1/errors/${timeout}`)).toMatchObject({ status: 'regressed', count: 3 });
    expect((await get(`/api/v1/errors/${ignored}`)).status).toBe('ignored');
    expect((await get('/api/v1/errors?service=quotes&status=unresolved')).items.map((group: { groupId: string }) => group.groupId)).toEqual([timeout]);

    expect((await setStatus(timeout, 'open')).json().status).toBe('open');
    expect((await get('/api/v1/errors?service=quotes&status=open')).items.map((group: { groupId: string }) => group.groupId)).toEqual([timeout]);
  });

  it('refuses status changes without a session, without the CSRF token, and with a bad status or group', async () => {
    await ingest([errorOccurrence(1000, { type: 'GuardedError', message: 'no' })], 'guarded');
    const [group] = (await get('/api/v1/errors?service=guarded')).items;
    const url = `/api/v1/errors/${group.groupId}/status`;
    const signedOut = await app.inject({ method: 'POST', url, payload: { status: 'resolved' } });
    expect(signedOut.statusCode).toBe(401);
    expect(signedOut.json().error.code).toBe('unauthorized');
    expect((await app.inject({ method: 'GET', url: '/api/v1/errors' })).statusCode).toBe(401);
    expect((await app.inject({ method: 'GET', url: `/api/v1/errors/${group.groupId}` })).statusCode).toBe(401);
    const withoutCsrf = await asBrowser(app, member, { method: 'POST', url, payload: { status: 'resolved' }, headers: { 'x-csrf-token': 'not-the-token' } });
    expect(withoutCsrf.statusCode).toBe(403);
    expect(withoutCsrf.json().error.code).toBe('csrf-failed');
    for (const payload of [{ status: 'regressed' }, { status: 'done' }, {}, { status: 'resolved', extra: 1 }]) {
      const bad = await asBrowser(app, member, { method: 'POST', url, payload });
      expect(bad.statusCode, JSON.stringify(payload) + bad.body).toBe(400);
      expect(bad.json().error.code).toBe('invalid-request');
    }
    expect((await get(`/api/v1/errors/${group.groupId}`)).status).toBe('open');
    const unknown = await setStatus('0123456789abcdef', 'resolved');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe('error-group-not-found');
    expect((await asBrowser(app, member, { method: 'GET', url: '/api/v1/errors/0123456789abcdef' })).json().error.code).toBe('error-group-not-found');
    expect((await asBrowser(app, member, { method: 'GET', url: '/api/v1/errors/not-a-group' })).statusCode).toBe(400);
  });

  it('pages through the groups with a cursor, in each sort order', async () => {
    const occurrences = [];
    for (let kind = 0; kind < 7; kind += 1) {
      for (let n = 0; n <= kind; n += 1) occurrences.push(errorOccurrence(10_000 + kind * 1000 + n, { type: `Kind${kind}Error`, message: `failed ${n}` }));
    }
    await ingest(occurrences, 'paged');
    for (const sort of ['lastSeen', 'firstSeen', 'count']) {
      const all = (await get(`/api/v1/errors?service=paged&sort=${sort}&limit=100`)).items as Array<{ groupId: string; countInRange: number; lastSeen: string; firstSeen: string }>;
      expect(all).toHaveLength(7);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { items: Array<{ groupId: string }>; nextCursor: string | null } = await get(`/api/v1/errors?service=paged&sort=${sort}&limit=3${cursor ? `&cursor=${cursor}` : ''}`);
        expect(page.items.length).toBeLessThanOrEqual(3);
        seen.push(...page.items.map((item) => item.groupId));
        cursor = page.nextCursor;
      } while (cursor);
      expect(seen).toEqual(all.map((item) => item.groupId));
      const keyOf = (item: (typeof all)[number]) => (sort === 'count' ? item.countInRange : Date.parse(sort === 'lastSeen' ? item.lastSeen : item.firstSeen));
      for (let i = 1; i < all.length; i += 1) expect(keyOf(all[i - 1]!)).toBeGreaterThanOrEqual(keyOf(all[i]!));
    }
    expect((await get('/api/v1/errors?service=paged&sort=count&limit=1')).items[0].type).toBe('Kind6Error');
    const firstPage = await get('/api/v1/errors?service=paged&limit=2');
    for (const url of [`/api/v1/errors?cursor=${firstPage.nextCursor}&sort=count`, '/api/v1/errors?cursor=bm9wZQ']) {
      const refused = await asBrowser(app, member, { method: 'GET', url });
      expect(refused.statusCode).toBe(400);
      expect(refused.json().error.code).toBe('invalid-cursor');
    }
    for (const url of ['/api/v1/errors?status=gone', '/api/v1/errors?limit=0', '/api/v1/errors?sort=name', '/api/v1/errors?from=yesterday']) {
      expect((await asBrowser(app, member, { method: 'GET', url })).statusCode, url).toBe(400);
    }
  });
});

describeEachDatabase('upgrading a database stored before errors were grouped', (database) => {
  let app: App | undefined;
  afterAll(async () => {
    await app?.close();
  });

  describe('at start', () => {
    it('groups the stored error occurrences', async () => {
      const legacy = await databaseMigratedUpTo(database(), '2026-11-29-01-span-id-index');
      const now = Date.now();
      const base = { client_id: null, parent_span_id: null, service: 'legacy', environment: 'production', operation: 'job', kind: 'internal', duration_ms: 3, received_at: now };
      const rows = [
        { status: 'error', error_type: 'DbError', error_message: 'row 17 locked', error_stack: null, tenant_id: 't1' },
        { status: 'error', error_type: 'DbError', error_message: 'row 99 locked', error_stack: null, tenant_id: 't2' },
        { status: 'error', error_type: 'OtherError', error_message: 'boom', error_stack: null, tenant_id: null },
        { status: 'ok', error_type: null, error_message: null, error_stack: null, tenant_id: null },
      ];
      for (const [index, row] of rows.entries()) {
        await insertRow(legacy, 'occurrences', { ...base, ...row, trace_id: newTraceId(), span_id: newSpanId(), started_at: now - 60_000 + index * 1000 });
      }
      await legacy.close();

      app = await buildTestApp(database());
      const session = await setUpFirstAdmin(app);
      const list = await asBrowser(app, session, { method: 'GET', url: '/api/v1/errors?service=legacy' });
      expect(list.statusCode, list.body).toBe(200);
      const items = list.json().items as Array<{ type: string; message: string; count: number; tenantsAffected: number; status: string }>;
      expect(items.map(({ type, message, count, tenantsAffected, status }) => ({ type, message, count, tenantsAffected, status }))).toEqual([
        { type: 'OtherError', message: 'boom', count: 1, tenantsAffected: 0, status: 'open' },
        { type: 'DbError', message: 'row ? locked', count: 2, tenantsAffected: 2, status: 'open' },
      ]);
      const detail = await asBrowser(app, session, { method: 'GET', url: `/api/v1/errors/${list.json().items[1].groupId}` });
      expect(detail.json().recentOccurrences).toHaveLength(2);
    });
  });
});

describeEachDatabase('error groups under retention', (database) => {
  const start = Date.parse('2026-11-10T12:00:00.000Z');
  const clock = new ManualClock(start);
  let app: App;
  afterAll(async () => {
    await app.close();
  });

  it('forgets the groups last seen, and the hours ended, before the retention cutoff', async () => {
    app = await buildTestApp(database(), { SERVICE_API_KEY: key, RETENTION_DAYS: '1', RETENTION_PRUNE_INTERVAL_SECONDS: '3600' }, { clock });
    await setUpFirstAdmin(app);
    const ingest = async (agoMs: number, type: string) => {
      const occurrence = minimalOccurrence(iso(clock.now() - agoMs), { status: 'error', error: { type, message: 'failed' } });
      const response = await app.inject({ method: 'POST', url: '/api/v1/ingest', headers: { authorization: `Bearer ${key}` }, payload: envelope([occurrence], { service: 'kept', environment: 'production' }) });
      expect(response.statusCode, response.body).toBe(202);
    };
    await ingest(3 * 3_600_000, 'OldError');
    await ingest(3 * 3_600_000, 'StillSeenError');
    clock.set(start + 22 * 3_600_000);
    await ingest(0, 'StillSeenError');
    clock.set(start + 24 * 3_600_000);
    await app.retention.pruner.pruneOnce();
    const session = await signIn(app, firstAdmin.email, firstAdmin.password);
    const list = await asBrowser(app, session, { method: 'GET', url: `/api/v1/errors?from=${iso(start - 86_400_000)}` });
    expect(list.json().items.map((group: { type: string; count: number; countInRange: number }) => [group.type, group.count, group.countInRange])).toEqual([['StillSeenError', 2, 1]]);
  });
});

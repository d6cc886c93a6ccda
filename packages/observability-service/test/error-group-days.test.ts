import { afterAll, expect, it } from 'vitest';
import { sql, type Kysely } from 'kysely';
import { ManualClock, type App } from '@playstack/server-kit';
import { describeEachDatabase, seededRandom } from '@playstack/server-kit/testing';
import { asBrowser, firstAdmin, setUpFirstAdmin, signIn, type BrowserSession } from './support/browser-session.js';
import { envelope, minimalOccurrence } from './support/envelopes.js';
import { databaseMigratedUpTo, insertRow } from './support/legacy-database.js';
import { buildTestApp } from './support/test-app.js';

const key = 'error-group-days-test-key-012345';
const hourMs = 3_600_000;
const dayMs = 24 * hourMs;
const minuteMs = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();
const types = ['QuotaError', 'TimeoutError', 'ParseError'] as const;
const environments = ['production', 'staging'] as const;

interface Sent {
  startedAt: number;
  type: string;
  environment: string;
}

/** Per-day rows that differ from the sum of the day's stored hours (none when the invariant holds). */
async function daysNotSummingHours(db: Kysely<any>): Promise<unknown[]> {
  const hours: Array<{ group_id: string; environment: string; day: number | string; count: number | string }> = await db
    .selectFrom('error_group_hours')
    .select(['group_id', 'environment', sql<number>`hour - (hour % 86400000)`.as('day'), sql<number>`sum(count)`.as('count')])
    .groupBy(['group_id', 'environment', sql`hour - (hour % 86400000)`])
    .execute();
  const days = (await db.selectFrom('error_group_days').selectAll().execute()) as Array<{ group_id: string; environment: string; day: number | string; count: number | string }>;
  const keyOf = (row: { group_id: string; environment: string; day: number | string }) => `${row.group_id}|${row.environment}|${Number(row.day)}`;
  const expected = new Map(hours.map((row) => [keyOf(row), Number(row.count)]));
  const stored = new Map(days.map((row) => [keyOf(row), Number(row.count)]));
  return [...new Set([...expected.keys(), ...stored.keys()])].filter((k) => expected.get(k) !== stored.get(k)).map((k) => ({ key: k, hours: expected.get(k), day: stored.get(k) }));
}

describeEachDatabase('error counts per day', (database) => {
  // Mid-afternoon: ranges end mid-day, mid-hour and mid-minute.
  const now = Date.parse('2026-11-20T15:21:13.250Z');
  const clock = new ManualClock(now);
  let app: App;
  let session: BrowserSession;
  const sent: Sent[] = [];
  afterAll(async () => {
    await app.close();
  });

  const countsInRange = async (fromMs: number, toMs: number, environment?: string) => {
    const url = `/api/v1/errors?service=daily&sort=count&limit=100&from=${iso(fromMs)}&to=${iso(toMs)}${environment ? `&environment=${environment}` : ''}`;
    const response = await asBrowser(app, session, { method: 'GET', url });
    expect(response.statusCode, response.body).toBe(200);
    const items = response.json().items as Array<{ type: string; countInRange: number; trend: number[] }>;
    for (const item of items) expect(item.trend.reduce((sum, n) => sum + n, 0), url).toBe(item.countInRange);
    return Object.fromEntries(items.map((item) => [item.type, item.countInRange]));
  };
  /** Brute force over what was sent: the list counts every hour any part of which lies in the range. */
  const expectedCounts = (fromMs: number, toMs: number, environment?: string) => {
    const fromHour = Math.floor(fromMs / hourMs) * hourMs;
    const toHour = Math.ceil(toMs / hourMs) * hourMs;
    const counts: Record<string, number> = {};
    for (const row of sent) {
      if (row.startedAt < fromHour || row.startedAt >= toHour || (environment !== undefined && row.environment !== environment)) continue;
      counts[row.type] = (counts[row.type] ?? 0) + 1;
    }
    return counts;
  };

  it('sums whole days and the partial hours at either end to the raw occurrences, in any range', async () => {
    app = await buildTestApp(database(), { SERVICE_API_KEY: key }, { clock });
    session = await setUpFirstAdmin(app);
    const random = seededRandom(7);
    // Five days of errors, with some exactly on day and hour boundaries.
    const firstDay = Math.floor((now - 5 * dayMs) / dayMs) * dayMs;
    for (let i = 0; i < 600; i += 1) {
      const startedAt = i < 20 ? firstDay + (i % 6) * dayMs - (i % 2) : now - 1 - Math.floor(random() * 5 * dayMs);
      sent.push({ startedAt, type: types[Math.floor(random() * types.length)]!, environment: environments[random() < 0.7 ? 0 : 1] });
    }
    for (const environment of environments) {
      const occurrences = sent
        .filter((row) => row.environment === environment && row.startedAt < now)
        .map((row) => minimalOccurrence(iso(row.startedAt), { status: 'error', error: { type: row.type, message: 'failed' } }));
      for (let offset = 0; offset < occurrences.length; offset += 200) {
        const response = await app.inject({
          method: 'POST',
          url: '/api/v1/ingest',
          headers: { authorization: `Bearer ${key}` },
          payload: envelope(occurrences.slice(offset, offset + 200), { service: 'daily', environment }),
        });
        expect(response.statusCode, response.body).toBe(202);
      }
    }
    sent.splice(0, sent.length, ...sent.filter((row) => row.startedAt < now));
    expect(await daysNotSummingHours(app.database.db)).toEqual([]);

    const midnight = Math.floor(now / dayMs) * dayMs;
    const ranges: Array<[number, number, string?]> = [
      [now - 4 * dayMs - 5 * hourMs - 17 * minuteMs, now - hourMs - 3 * minuteMs],
      [now - 4 * dayMs - 5 * hourMs - 17 * minuteMs, now - hourMs - 3 * minuteMs, 'staging'],
      [midnight - 3 * dayMs, midnight - dayMs],
      [midnight - 3 * dayMs + 1, midnight - dayMs - 1],
      [midnight - 2 * dayMs - 2 * hourMs, midnight - dayMs + 3 * hourMs],
      [midnight - 5 * hourMs - 30 * minuteMs, midnight + 2 * hourMs],
      [now - 6 * dayMs, now, 'production'],
    ];
    for (const [fromMs, toMs, environment] of ranges) {
      expect(await countsInRange(fromMs, toMs, environment), `${iso(fromMs)}..${iso(toMs)} ${environment ?? ''}`).toEqual(expectedCounts(fromMs, toMs, environment));
    }
  });
});

describeEachDatabase('error counts per day, upgrading a database that has per-hour counts only', (database) => {
  let app: App | undefined;
  afterAll(async () => {
    await app?.close();
  });

  it('sums the stored hours into days', async () => {
    const legacy = await databaseMigratedUpTo(database(), '2026-12-01-01-service-started-at-index');
    const now = Date.now();
    const today = Math.floor(now / dayMs) * dayMs;
    await insertRow(legacy, 'error_groups', {
      group_id: '0123456789abcdef', service: 'legacy', error_type: 'DbError', message: 'row ? locked', top_frame: '', example_message: 'row 1 locked',
      first_seen: today - 3 * dayMs, last_seen: now - 1000, count: 0, example_trace_id: 'a'.repeat(32), example_span_id: 'b'.repeat(16), status: 'open',
    });
    const hours: Array<[number, string, number]> = [
      [today - 3 * dayMs, 'production', 4],
      [today - 3 * dayMs + 23 * hourMs, 'production', 5],
      [today - 2 * dayMs + 7 * hourMs, 'production', 6],
      [today - 2 * dayMs + 7 * hourMs, 'staging', 7],
      [today - dayMs + 12 * hourMs, 'production', 8],
    ];
    for (const [hour, environment, count] of hours) await insertRow(legacy, 'error_group_hours', { group_id: '0123456789abcdef', environment, hour, count });
    // That release had grouped its stored occurrences at its first start.
    await (legacy.db as Kysely<any>).deleteFrom('rollup_tier_state').where('name', 'like', 'rebuild:%').execute();
    await legacy.close();

    app = await buildTestApp(database());
    const days = await app.database.db.selectFrom('error_group_days').select(['environment', 'day', 'count']).orderBy('day').orderBy('environment').execute();
    expect(days.map((row) => [row.environment, Number(row.day), Number(row.count)])).toEqual([
      ['production', today - 3 * dayMs, 9],
      ['production', today - 2 * dayMs, 6],
      ['staging', today - 2 * dayMs, 7],
      ['production', today - dayMs, 8],
    ]);
    const session = await setUpFirstAdmin(app);
    const list = await asBrowser(app, session, { method: 'GET', url: `/api/v1/errors?service=legacy&from=${iso(today - 3 * dayMs + 30 * minuteMs)}&to=${iso(today)}` });
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json().items.map((item: { countInRange: number }) => item.countInRange)).toEqual([30]);
  });
});

describeEachDatabase('error counts per day under retention', (database) => {
  const start = Date.parse('2026-11-10T12:00:00.000Z');
  const clock = new ManualClock(start);
  let app: App;
  afterAll(async () => {
    await app.close();
  });

  it('drops the days that ended before the cutoff and sums the day it falls in again from its remaining hours', async () => {
    app = await buildTestApp(database(), { SERVICE_API_KEY: key, RETENTION_DAYS: '1', RETENTION_PRUNE_INTERVAL_SECONDS: '3600' }, { clock });
    await setUpFirstAdmin(app);
    const ingest = async (atMs: number) => {
      const occurrence = minimalOccurrence(iso(atMs), { status: 'error', error: { type: 'KeptError', message: 'failed' } });
      const response = await app.inject({ method: 'POST', url: '/api/v1/ingest', headers: { authorization: `Bearer ${key}` }, payload: envelope([occurrence], { service: 'pruned', environment: 'production' }) });
      expect(response.statusCode, response.body).toBe(202);
    };
    // The day before (gone), and hours of 2026-11-10 before and after the cutoff to come (its 06:30).
    for (const at of ['2026-11-09T20:00:00Z', '2026-11-10T01:10:00Z', '2026-11-10T05:59:00Z', '2026-11-10T06:10:00Z', '2026-11-10T09:00:00Z', '2026-11-10T11:00:00Z']) await ingest(Date.parse(at));
    clock.set(Date.parse('2026-11-11T06:30:00Z'));
    await ingest(clock.now() - 1000);
    const db = app.database.db;
    expect(await daysNotSummingHours(db)).toEqual([]);
    await app.retention.pruner.pruneOnce();

    const days = await db.selectFrom('error_group_days').select(['day', 'count']).orderBy('day').execute();
    // 11-10 keeps its hours from 06:00 on: that hour straddles the cutoff and is kept whole, as the hours are.
    expect(days.map((row) => [iso(Number(row.day)), Number(row.count)])).toEqual([
      ['2026-11-10T00:00:00.000Z', 3],
      ['2026-11-11T00:00:00.000Z', 1],
    ]);
    expect(await daysNotSummingHours(db)).toEqual([]);
    const session = await signIn(app, firstAdmin.email, firstAdmin.password);
    const list = await asBrowser(app, session, { method: 'GET', url: `/api/v1/errors?service=pruned&from=${iso(Date.parse('2026-11-08T00:00:00Z'))}` });
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json().items.map((item: { countInRange: number }) => item.countInRange)).toEqual([4]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '@playstack/server-kit';
import { clickHouseAvailable, describeEachDatabase, startTestClickHouse, type TestClickHouse } from '@playstack/server-kit/testing';
import { comparableAnswer } from './support/comparable-answer.js';
import { generateErrorGroupedDataSet } from './support/generated-occurrences.js';
import { sqlAndClickHouseApps } from './support/sql-and-clickhouse-apps.js';

// Equivalence: one generated data set stored in the SQL store (SQLite, PostgreSQL) and in
// ClickHouse, and every read endpoint asked the same questions of both over HTTP. Counts must be
// equal; percentiles come from the same log-bucket histograms on both sides, so they are equal
// too (within the documented 2% of the exact value, which read-api.test.ts checks); sums of
// doubles are compared to 9 significant digits (each store adds in its own order). Ids differ
// (each store assigns its own) and are left out.

const now = Date.parse('2026-11-21T12:00:00.000Z');
const hourMs = 3_600_000;
const dayMs = 24 * hourMs;
const iso = (ms: number) => new Date(ms).toISOString();

const range = `from=${iso(now - 3 * dayMs)}&to=${iso(now + 60_000)}`;
const partRange = `from=${iso(now - 7 * hourMs + 12_345)}&to=${iso(now - hourMs)}`;

/** Every read endpoint, with the parameters that exercise its filters. */
const questions = [
  '/api/v1/services',
  `/api/v1/services?${range}&environment=production`,
  '/api/v1/summary',
  `/api/v1/summary?${partRange}&service=orders`,
  '/api/v1/trend?interval=1h',
  `/api/v1/trend?${range}&service=payments&interval=6h`,
  '/api/v1/operations?limit=5',
  `/api/v1/operations?${range}&environment=staging`,
  `/api/v1/occurrences?${range}&limit=50`,
  `/api/v1/occurrences?${range}&service=orders&status=error&offset=3&limit=7`,
  `/api/v1/occurrences?${range}&minDurationMs=20&maxDurationMs=400&limit=30`,
  `/api/v1/occurrences?${range}&attr.retries=2&limit=200`,
  `/api/v1/occurrences?${range}&attr.http.client_ip=10.0.0.1&errorType=TimeoutError`,
  `/api/v1/occurrences/durations?${range}`,
  `/api/v1/occurrences/durations?${range}&service=gateway&status=ok`,
  '/api/v1/database',
  `/api/v1/database?${range}&service=orders`,
  `/api/v1/dependencies?${range}`,
  `/api/v1/dependencies?${range}&service=payments&environment=production`,
  '/api/v1/usage',
  `/api/v1/usage?${range}&tenantId=acme`,
  `/api/v1/usage/trend?${range}&interval=6h`,
  `/api/v1/usage/export?${range}&interval=1h&format=csv`,
  `/api/v1/usage/export?${range}&interval=1d&format=json`,
  `/api/v1/errors?${range}`,
  `/api/v1/errors?${range}&sort=count&limit=2`,
  `/api/v1/errors?${range}&sort=firstSeen&environment=staging`,
];

if (clickHouseAvailable()) describe('the read API on ClickHouse answers as on the SQL stores', () => {
  let clickHouse: TestClickHouse;
  const clock = new ManualClock(now);
  const data = generateErrorGroupedDataSet(now, 1200, 11);

  beforeAll(async () => {
    clickHouse = await startTestClickHouse();
  }, 120_000);
  afterAll(async () => {
    await clickHouse?.dispose();
  });

  describeEachDatabase('same data, same answers', (database) => {
    const { app, ask, both } = sqlAndClickHouseApps({
      database,
      clickHouse: () => clickHouse,
      clock,
      sqlEnv: { ROLLUP_TIER_INTERVAL_SECONDS: '3600' },
      fill: async (sqlApp, columnarApp) => {
        for (let offset = 0; offset < data.rows.length; offset += 300) {
          const chunk = data.rows.slice(offset, offset + 300);
          await Promise.all([sqlApp.telemetry.write(chunk), columnarApp.telemetry.write(chunk)]);
        }
      },
    });

    it('reports ClickHouse as the telemetry store in health, with the same occurrence count', async () => {
      const [sql, columnar] = await both('/api/v1/health');
      expect(columnar.status).toBe(200);
      const body = columnar.body as { database: { dialect: string; status: string }; storage: { rows: { occurrences: number } } };
      expect(body.database).toMatchObject({ dialect: 'clickhouse', status: 'ok' });
      expect(body.storage.rows.occurrences).toBe((sql.body as typeof body).storage.rows.occurrences);
      expect(body.storage.rows.occurrences).toBe(data.rows.length);
    });

    for (const url of questions) {
      it(`GET ${url.replace(/from=[^&]+&to=[^&]+/, 'from&to')}`, async () => {
        const [sql, columnar] = await both(url);
        expect(sql.status).toBe(200);
        expect(columnar.status).toBe(200);
        expect(comparableAnswer(columnar.body)).toEqual(comparableAnswer(sql.body));
      });
    }

    it('serves traces, looks ids up, and reads one occurrence by the id its list gave', async () => {
      for (const traceId of [data.traceId, ...new Set(data.rows.slice(0, 20).map((row) => row.trace_id))]) {
        const [sql, columnar] = await both(`/api/v1/traces/${traceId}`);
        expect(columnar.status).toBe(200);
        expect(comparableAnswer(columnar.body)).toEqual(comparableAnswer(sql.body));
        const [sqlLookup, columnarLookup] = await both(`/api/v1/lookup/${traceId.toUpperCase()}`);
        expect(columnarLookup).toEqual(sqlLookup);
      }
      const span = data.rows[5]!;
      const [sqlSpan, columnarSpan] = await both(`/api/v1/lookup/${span.span_id}`);
      expect(columnarSpan.status).toBe(200);
      expect(comparableAnswer(columnarSpan.body)).toEqual(comparableAnswer(sqlSpan.body));
      const listed = (await ask('columnar', `/api/v1/occurrences?${range}&limit=3`)).body as { items: Array<{ id: string; spanId: string }> };
      for (const item of listed.items) {
        const found = await ask('columnar', `/api/v1/occurrences/${item.id}`);
        expect(found.status).toBe(200);
        expect((found.body as { spanId: string }).spanId).toBe(item.spanId);
      }
      for (const missing of ['/api/v1/traces/' + 'e'.repeat(32), '/api/v1/lookup/' + 'e'.repeat(16), '/api/v1/occurrences/999999999', '/api/v1/occurrences/zz-0011223344556677', '/api/v1/errors/0123456789abcdef']) {
        const [sql, columnar] = await both(missing);
        expect(columnar.status).toBe(404);
        expect((columnar.body as { error: { code: string } }).error.code).toBe((sql.body as { error: { code: string } }).error.code);
      }
    }, 120_000);

    it('finds the newest page in the last minute of a range, or in longer windows, as the SQL store does', async () => {
      // Ranges ending just after stored spans: the page's last row lies in the range's last
      // minute (limit 1), in a longer window (deeper pages), or only in the whole range.
      const starts = [...new Set(data.rows.map((row) => Number(row.started_at)))].sort((a, b) => b - a);
      for (const end of [starts[0]! + 1, starts[40]! + 1, starts[400]! + 1]) {
        for (const page of ['limit=1', 'limit=2&offset=1', 'limit=20', 'limit=50&offset=100', 'limit=5&service=orders']) {
          const [sql, columnar] = await both(`/api/v1/occurrences?from=${iso(now - 3 * dayMs)}&to=${iso(end)}&${page}`);
          expect(columnar.status).toBe(200);
          expect((columnar.body as { items: unknown[] }).items.length).toBeGreaterThan(0);
          expect(comparableAnswer(columnar.body)).toEqual(comparableAnswer(sql.body));
        }
      }
      // A range holding fewer spans than the page asks for: every window, then nothing more.
      const [sql, columnar] = await both(`/api/v1/occurrences?from=${iso(starts[3]!)}&to=${iso(starts[0]! + 1)}&limit=50&offset=2`);
      const { items, total } = columnar.body as { items: unknown[]; total: number };
      expect(total).toBeGreaterThanOrEqual(4);
      expect(items).toHaveLength(total - 2);
      expect(comparableAnswer(columnar.body)).toEqual(comparableAnswer(sql.body));
    }, 120_000);

    it('pages error groups by cursor and shows each group in detail, as the SQL store does', async () => {
      const [sqlList, columnarList] = await both(`/api/v1/errors?${range}&limit=2`);
      const groups = (sqlList.body as { items: Array<{ groupId: string }> }).items;
      expect(groups.length).toBe(2);
      const next = (body: unknown) => (body as { nextCursor: string | null }).nextCursor;
      expect(next(columnarList.body) === null).toBe(next(sqlList.body) === null);
      const [sqlPage, columnarPage] = await Promise.all([
        ask('sql', `/api/v1/errors?${range}&limit=2&cursor=${next(sqlList.body)}`),
        ask('columnar', `/api/v1/errors?${range}&limit=2&cursor=${next(columnarList.body)}`),
      ]);
      expect(comparableAnswer(columnarPage.body)).toEqual(comparableAnswer(sqlPage.body));
      for (const { groupId } of groups) {
        for (const query of [range, `${partRange}&environment=production`, `from=${iso(now - 2 * hourMs)}&to=${iso(now)}`]) {
          const [sql, columnar] = await both(`/api/v1/errors/${groupId}?${query}`);
          expect(columnar.status).toBe(200);
          expect(comparableAnswer(columnar.body)).toEqual(comparableAnswer(sql.body));
        }
      }
    }, 120_000);

    it('changes a group\'s status; resolved then seen again reads as regressed', async () => {
      const [sqlList] = await both(`/api/v1/errors?${range}&limit=1`);
      const group = (sqlList.body as { items: Array<{ groupId: string }> }).items[0]!;
      for (const status of ['ignored', 'resolved'] as const) {
        const [sql, columnar] = await both(`/api/v1/errors/${group.groupId}/status`, 'POST', { status });
        expect(columnar).toEqual(sql);
        const [sqlAfter, columnarAfter] = await both(`/api/v1/errors?${range}&status=${status}`);
        expect(comparableAnswer(columnarAfter.body)).toEqual(comparableAnswer(sqlAfter.body));
        clock.advance(1);
      }
      clock.advance(60_000);
      const sample = (await ask('columnar', `/api/v1/errors/${group.groupId}?${range}`)).body as { recentOccurrences: Array<{ traceId: string; spanId: string }> };
      const original = data.rows.find((row) => row.span_id === sample.recentOccurrences[0]!.spanId)!;
      const recurrence = { ...original, span_id: 'fedcba9876543210', started_at: clock.now() - 1000 };
      await Promise.all([app('sql').telemetry.write([recurrence]), app('columnar').telemetry.write([recurrence])]);
      const [sql, columnar] = await both(`/api/v1/errors?from=${iso(now - dayMs)}&to=${iso(clock.now())}&status=regressed`);
      expect((columnar.body as { items: unknown[] }).items).toHaveLength(1);
      expect(comparableAnswer(columnar.body)).toEqual(comparableAnswer(sql.body));
    }, 120_000);

    it('takes the latest of several status changes made in one millisecond', async () => {
      const [sqlList] = await both(`/api/v1/errors?${range}&limit=2`);
      const group = (sqlList.body as { items: Array<{ groupId: string }> }).items[1]!;
      const changes: Array<{ status: string; statusChangedAt: string }> = [];
      for (const status of ['ignored', 'resolved', 'open', 'ignored'] as const) {
        const [sql, columnar] = await both(`/api/v1/errors/${group.groupId}/status`, 'POST', { status });
        expect(sql.status).toBe(200);
        expect(columnar.status).toBe(200);
        changes.push(columnar.body as { status: string; statusChangedAt: string });
        const [sqlDetail, columnarDetail] = await both(`/api/v1/errors/${group.groupId}?${range}`);
        expect((columnarDetail.body as { status: string }).status).toBe(status);
        expect((columnarDetail.body as { status: string }).status).toBe((sqlDetail.body as { status: string }).status);
      }
      // The clock did not move: each change is recorded a millisecond after the one before.
      const times = changes.map((change) => Date.parse(change.statusChangedAt));
      expect(times.map((time) => time - times[0]!)).toEqual([0, 1, 2, 3]);
    }, 120_000);
  });
});

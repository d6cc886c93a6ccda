import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '@playstack/server-kit';
import { clickHouseAvailable, describeEachDatabase, startTestClickHouse, type TestClickHouse } from '@playstack/server-kit/testing';
import { generateLogs } from './support/generated-logs.js';
import { sqlAndClickHouseApps, type Side } from './support/sql-and-clickhouse-apps.js';

// Equivalence of the log stores: one generated set of log records stored in the SQL log store
// (SQLite, PostgreSQL) and in ClickHouse's, and every logs endpoint (search with each filter and
// paging, trend, a trace's records, and usage's log counts) asked the same questions of both over
// HTTP. Answers must be equal but for the ids and cursors (each store makes its own).

const now = Date.parse('2026-11-21T12:00:00.000Z');
const hourMs = 3_600_000;
const dayMs = 24 * hourMs;
const iso = (ms: number) => new Date(ms).toISOString();
const data = generateLogs(now, 3_000);

/** An answer with ids and cursors left out. */
function comparable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(comparable);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== 'id' && key !== 'nextCursor')
      .map(([key, entry]) => [key, comparable(entry)]),
  );
}

const range = `from=${iso(now - 3 * dayMs)}&to=${iso(now + 60_000)}`;
// Bounds inside minutes: the trend's counts take the minutes touching the range, the list the records inside it.
const partRange = `from=${iso(now - 30 * hourMs + 12_345)}&to=${iso(now - 5 * hourMs - 7_000)}`;
const traceId = data.traceIds[0]!;

/** Searches that find nothing (a reversed phrase, a word's prefix); every other finds records. */
const findingNothing = new Set([`${range}&q=players%2Fapi&limit=200`, `${range}&q=timeo&limit=200`]);

const searches = [
  `${range}&limit=200`,
  `${partRange}&limit=200`,
  'limit=200',
  `${range}&service=orders&limit=200`,
  `${range}&service=payments&environment=staging&limit=200`,
  `${range}&severity=warn&limit=200`,
  `${range}&severity=14&environment=production&limit=200`,
  `${range}&severity=fatal&limit=200`,
  `${range}&q=timeout&limit=200`,
  `${range}&q=Timeout%20lock&limit=200`,
  `${range}&q=locks&service=gateway&limit=200`,
  `${range}&q=api%2Fplayers&limit=200`,
  `${range}&q=players%2Fapi&limit=200`,
  `${range}&q=v1.2&limit=200`,
  `${range}&q=caf%C3%A9&limit=200`,
  `${range}&q=cafe&limit=200`,
  `${range}&q=timeo&limit=200`,
  `${range}&q=players&severity=error&limit=200`,
  `${range}&traceId=${traceId}&limit=200`,
  `${range}&traceId=${traceId.toUpperCase()}&q=player&limit=200`,
  `${range}&attr.region=eu&limit=200`,
  `${range}&attr.shard=2&attr.cached=true&limit=200`,
  `${range}&attr.host.name=host-1&service=orders&limit=200`,
  `${range}&attr.region=eu&q=queue&severity=info&limit=200`,
];

const trends = [
  `${range}&interval=1h`,
  `${range}&interval=6h&service=gateway`,
  `${partRange}&interval=15m`,
  `${partRange}&interval=1h&severity=warn&environment=staging`,
  'interval=1h',
  `${range}&interval=1d&q=timeout`,
  `${range}&interval=1h&traceId=${traceId}`,
  `${range}&interval=6h&attr.region=us&severity=error`,
];

const usage = [`/api/v1/usage?${range}`, `/api/v1/usage?${partRange}&service=payments`, `/api/v1/usage/trend?${range}&interval=6h`, `/api/v1/usage/export?${range}&interval=1h&format=json`];

if (clickHouseAvailable()) describe('the logs endpoints on ClickHouse answer as on the SQL log store', () => {
  let clickHouse: TestClickHouse;
  const clock = new ManualClock(now);

  beforeAll(async () => {
    clickHouse = await startTestClickHouse();
  }, 120_000);
  afterAll(async () => {
    await clickHouse?.dispose();
  });

  describeEachDatabase('same log records, same answers', (database) => {
    const { ask, both } = sqlAndClickHouseApps({
      database,
      clickHouse: () => clickHouse,
      clock,
      // In the same chunks and order on both: records of one millisecond keep their order of arrival.
      fill: async (sqlApp, columnarApp) => {
        for (let offset = 0; offset < data.records.length; offset += 400) {
          const chunk = data.records.slice(offset, offset + 400);
          await Promise.all([sqlApp.telemetry.write([], 0, chunk), columnarApp.telemetry.write([], 0, chunk)]);
        }
      },
    });

    for (const query of searches) {
      it(`GET /api/v1/logs?${query.replace(/from=[^&]+&to=[^&]+/, 'from&to')}`, async () => {
        const [sql, columnar] = await both(`/api/v1/logs?${query}`);
        expect(sql.status).toBe(200);
        expect(columnar.status).toBe(200);
        expect((sql.body as { items: unknown[] }).items.length > 0).toBe(!findingNothing.has(query));
        expect(comparable(columnar.body)).toEqual(comparable(sql.body));
      });
    }

    it('pages through every record with cursors: the same pages, newest first, then the same end', async () => {
      type Page = { items: Array<{ id: string; time: string }>; nextCursor: string | null };
      const page = async (side: Side, cursor: string | null): Promise<Page> => (await ask(side, `/api/v1/logs?${range}&limit=37${cursor ? `&cursor=${cursor}` : ''}`)).body as Page;
      let sqlCursor: string | null = null;
      let columnarCursor: string | null = null;
      let pages = 0;
      let records = 0;
      do {
        const [sql, columnar]: [Page, Page] = await Promise.all([page('sql', sqlCursor), page('columnar', columnarCursor)]);
        expect(comparable(columnar)).toEqual(comparable(sql));
        expect(columnar.nextCursor === null).toBe(sql.nextCursor === null);
        sqlCursor = sql.nextCursor;
        columnarCursor = columnar.nextCursor;
        pages += 1;
        records += sql.items.length;
      } while (sqlCursor !== null);
      expect(records).toBe(data.records.length);
      expect(pages).toBe(Math.ceil(data.records.length / 37));
    }, 120_000);

    for (const query of trends) {
      it(`GET /api/v1/logs/trend?${query.replace(/from=[^&]+&to=[^&]+/, 'from&to')}`, async () => {
        const [sql, columnar] = await both(`/api/v1/logs/trend?${query}`);
        expect(sql.status).toBe(200);
        expect((sql.body as { buckets: Array<{ total: number }> }).buckets.some((bucket) => bucket.total > 0)).toBe(true);
        expect(columnar.body).toEqual(sql.body);
      });
    }

    it('serves each trace\'s records earliest first, and none for an unknown trace', async () => {
      for (const id of [...data.traceIds, traceId.toUpperCase(), 'e'.repeat(32)]) {
        const [sql, columnar] = await both(`/api/v1/traces/${id}/logs`);
        expect(columnar.status).toBe(200);
        expect(comparable(columnar.body)).toEqual(comparable(sql.body));
      }
      const [sql] = await both(`/api/v1/traces/${traceId}/logs`);
      expect((sql.body as { items: unknown[] }).items.length).toBeGreaterThan(100);
    });

    for (const url of usage) {
      it(`GET ${url.replace(/from=[^&]+&to=[^&]+/, 'from&to')} (log counts per tenant)`, async () => {
        const [sql, columnar] = await both(url);
        expect(sql.status).toBe(200);
        expect(columnar.body).toEqual(sql.body);
      });
    }

    it('refuses a cursor neither store handed out, and one of the other store\'s form, with 400 invalid-cursor', async () => {
      const [sqlPage, columnarPage] = await both(`/api/v1/logs?${range}&limit=1`);
      const cursorOf = (body: unknown) => (body as { nextCursor: string }).nextCursor;
      const [sqlWithColumnarCursor, columnarWithSqlCursor] = await Promise.all([
        ask('sql', `/api/v1/logs?${range}&cursor=${cursorOf(columnarPage.body)}`),
        ask('columnar', `/api/v1/logs?${range}&cursor=${Buffer.from('log:' + '9'.repeat(40)).toString('base64url')}`),
      ]);
      expect(sqlWithColumnarCursor.status).toBe(400);
      expect(columnarWithSqlCursor.status).toBe(400);
      expect(cursorOf(sqlPage.body)).not.toBe(cursorOf(columnarPage.body));
      for (const cursor of ['not-a-cursor', Buffer.from('log:0').toString('base64url'), Buffer.from('log:-5').toString('base64url')]) {
        const [sql, columnar] = await both(`/api/v1/logs?cursor=${cursor}`);
        expect(columnar.status).toBe(400);
        expect((columnar.body as { error: { code: string } }).error.code).toBe('invalid-cursor');
        expect(sql.status).toBe(400);
      }
    });
  });
});

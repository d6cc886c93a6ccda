import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { ManualClock, type App } from '@playstack/server-kit';
import { clickHouseAvailable, describeEachDatabase, startTestClickHouse, type TestClickHouse } from '@playstack/server-kit/testing';
import { asBrowser, firstAdminSession, setUpFirstAdmin, type BrowserSession } from './support/browser-session.js';
import { envelope, newSpanId, newTraceId } from './support/envelopes.js';
import { parseCsv } from './support/parse-csv.js';
import { buildTestApp } from './support/test-app.js';

const legacyKey = 'logs-api-test-key-0123456789';
const minuteMs = 60_000;
const hourMs = 60 * minuteMs;
const dayMs = 24 * hourMs;
const start = Date.parse('2026-11-21T12:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

interface LogItem {
  id: string;
  time: string;
  body: unknown;
  severity: string;
  severityNumber: number;
  service: string;
  environment: string;
  traceId: string | null;
  tenantId: string | null;
  attributes: Record<string, unknown> | null;
}
interface LogPage {
  items: LogItem[];
  nextCursor: string | null;
  limit: number;
}

/** The log stores the suite runs on: the SQL one (SQLite, PostgreSQL), and ClickHouse's (users and sessions still in SQL) where ClickHouse can run. */
const stores = [{ name: 'SQL log store', onClickHouse: false }, ...(clickHouseAvailable() ? [{ name: 'telemetry in ClickHouse', onClickHouse: true }] : [])];

/** One ClickHouse server for the file, started by the first suite that needs it. */
let clickHouse: Promise<TestClickHouse> | undefined;
afterAll(async () => {
  await (await clickHouse)?.dispose();
});

for (const { name: storeName, onClickHouse } of stores) describeEachDatabase(`logs: ingest, search, trend, usage and retention, ${storeName}`, (database) => {
  const clock = new ManualClock(start);
  let app: App;
  let session: BrowserSession;
  beforeAll(async () => {
    const server = onClickHouse ? await (clickHouse ??= startTestClickHouse()) : undefined;
    app = await buildTestApp(
      database(),
      {
        SERVICE_API_KEY: legacyKey,
        INGEST_RATE_LIMIT_PER_SECOND: '100000',
        RETENTION_PRUNE_INTERVAL_SECONDS: '3600',
        RETENTION_PRUNE_BATCH_ROWS: '100',
        ...(server ? { CLICKHOUSE_URL: server.url, CLICKHOUSE_DATABASE: server.database() } : {}),
      },
      { clock },
    );
    await app.ready();
    await app.retention.pruner.pruneOnce();
    session = await setUpFirstAdmin(app);
  });
  afterAll(async () => {
    await app.close();
  });

  const send = async (logs: unknown[], resource: Record<string, unknown> = { service: 'game-api', environment: 'production' }, occurrences: unknown[] = []) => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/ingest',
      headers: { authorization: `Bearer ${legacyKey}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ ...envelope(occurrences, resource), logs }),
    });
    expect(response.statusCode, response.body).toBe(202);
    return response.json();
  };
  const get = async <T>(url: string, status = 200): Promise<T> => {
    const response = await asBrowser(app, session, { url });
    expect(response.statusCode, response.body).toBe(status);
    return response.json() as T;
  };
  const search = (query: Record<string, string>) => get<LogPage>(`/api/v1/logs?${new URLSearchParams(query).toString()}`);
  const bodies = (page: LogPage) => page.items.map((item) => item.body);

  it('takes log records in a protocol v1 envelope beside occurrences, counts them in the 202 and names refused ones by index', async () => {
    const traceId = newTraceId();
    const result = await send(
      [
        { time: iso(start - 5_000), severityText: 'Warning', body: 'disk almost full', attributes: { 'disk.free_mb': 120 } },
        { time: 'yesterday', body: 'no time' },
        { time: iso(start - 4_000), severityNumber: 17, body: { event: 'match.failed', reason: 'timeout', players: 4 }, traceId, spanId: newSpanId(), tenantId: 'acme', scope: { name: 'matchmaker' } },
        { time: iso(start - 30 * dayMs), body: 'too old' },
      ],
      { service: 'envelope-svc', environment: 'staging', version: '1.2.3', instance: 'i-1' },
      [{ traceId, spanId: newSpanId(), operation: 'match', kind: 'server', startedAt: iso(start - 4_100), durationMs: 200, status: 'error' }],
    );
    expect(result.accepted).toEqual({ occurrences: 1, logs: 2 });
    expect(result.rejected).toEqual({ occurrences: 0, logs: 2 });
    expect(result.errors).toEqual([
      { member: 'logs', index: 1, message: expect.stringMatching(/log\.time/) },
      { member: 'logs', index: 3, message: 'log.time is older than the retention period' },
    ]);
    const page = await search({ service: 'envelope-svc', from: iso(start - hourMs), to: iso(start) });
    expect(page.items.map((item) => [item.body, item.severity, item.severityNumber])).toEqual([
      [{ event: 'match.failed', reason: 'timeout', players: 4 }, 'error', 17],
      // "Warning" names a level: the record counts as warn.
      ['disk almost full', 'warn', 13],
    ]);
    expect(page.items[0]).toMatchObject({ environment: 'staging', traceId, tenantId: 'acme', scope: { name: 'matchmaker', version: null }, serviceVersion: '1.2.3', instance: 'i-1' });
    expect(page.items[1]!.attributes).toEqual({ 'disk.free_mb': 120 });
    const traceLogs = await get<{ items: LogItem[] }>(`/api/v1/traces/${traceId}/logs`);
    expect(traceLogs.items.map((item) => item.body)).toEqual([{ event: 'match.failed', reason: 'timeout', players: 4 }]);
  });

  it('finds a word in the body, whole and in any case, and not its near misses', async () => {
    const at = start - 10 * minuteMs;
    await send(
      [
        'Connection TIMEOUT after 30 s',
        'timeouts are retried',
        'timeoutMs=500 configured',
        'time out',
        'lock acquired on players table',
        'blocked by another transaction',
        'locksmith visited',
        'GET /api/players failed',
        'Café crème served',
      ].map((body, index) => ({ time: iso(at + index), severityNumber: 9, body })),
      { service: 'search-svc', environment: 'production' },
    );
    const found = (q: string) => search({ service: 'search-svc', q, from: iso(start - hourMs), to: iso(start) }).then(bodies);
    expect(await found('timeout')).toEqual(['Connection TIMEOUT after 30 s']);
    expect(await found('lock')).toEqual(['lock acquired on players table']);
    expect(await found('Lock players')).toEqual(['lock acquired on players table']);
    expect(await found('players')).toEqual(['GET /api/players failed', 'lock acquired on players table']);
    expect(await found('api/players')).toEqual(['GET /api/players failed']);
    expect(await found('players/api')).toEqual([]);
    expect(await found('café')).toEqual(['Café crème served']);
    expect(await found('cafe')).toEqual([]);
    expect(await found('timeo')).toEqual([]);
    await get(`/api/v1/logs?q=${encodeURIComponent('-- !!')}`, 400);
  });

  it('stores an envelope of 2,500 log records, more than one insert statement holds: each is found by its word and counted in its minute', async () => {
    const at = start - 3 * hourMs;
    const records = Array.from({ length: 2_500 }, (_, index) => ({
      time: iso(at + index * 1_000),
      severityNumber: index % 2 === 0 ? 9 : 17,
      body: `bulk record number${index}`,
    }));
    expect((await send(records, { service: 'bulk-svc', environment: 'production' })).accepted).toEqual({ occurrences: 0, logs: 2_500 });
    const range = { service: 'bulk-svc', from: iso(at), to: iso(at + 2_500 * 1_000) };
    for (const index of [0, 999, 1_000, 2_499]) {
      expect(bodies(await search({ ...range, q: `number${index}` }))).toEqual([`bulk record number${index}`]);
    }
    const trend = await get<{ buckets: Array<{ start: string; total: number; counts: Record<string, number> }> }>(
      `/api/v1/logs/trend?from=${range.from}&to=${range.to}&service=bulk-svc&interval=1m`,
    );
    expect(trend.buckets.reduce((sum, bucket) => sum + bucket.total, 0)).toBe(2_500);
    // A record a second: each minute holds 60 (the first and last less), half info, half error.
    const full = trend.buckets.find((bucket) => bucket.start === iso(at - (at % minuteMs) + 5 * minuteMs))!;
    expect(full).toMatchObject({ total: 60, counts: { info: 30, error: 30 } });
    const hourly = await get<{ buckets: Array<{ total: number }> }>(`/api/v1/logs/trend?from=${iso(at - (at % hourMs))}&to=${iso(at - (at % hourMs) + 2 * hourMs)}&service=bulk-svc&interval=1h`);
    expect(hourly.buckets.reduce((sum, bucket) => sum + bucket.total, 0)).toBe(2_500);
  });

  it('combines severity and attribute filters with the range, service and environment', async () => {
    const at = start - 20 * minuteMs;
    const record = (offsetMs: number, severityNumber: number, region: string, body: string) => ({ time: iso(at + offsetMs), severityNumber, body, attributes: { region, shard: 3 } });
    await send([record(0, 9, 'eu', 'eu info'), record(1, 13, 'eu', 'eu warn'), record(2, 17, 'eu', 'eu error'), record(3, 21, 'us', 'us fatal'), record(4, 0, 'eu', 'eu unspecified')], {
      service: 'filter-svc',
      environment: 'production',
    });
    await send([record(5, 17, 'eu', 'staging error')], { service: 'filter-svc', environment: 'staging' });
    await send([record(6, 17, 'eu', 'other service error')], { service: 'other-svc', environment: 'production' });
    await send([{ ...record(0, 17, 'eu', 'an hour earlier'), time: iso(at - hourMs) }], { service: 'filter-svc', environment: 'production' });
    const range = { from: iso(at - minuteMs), to: iso(at + minuteMs) };

    expect(bodies(await search({ ...range, service: 'filter-svc', severity: 'warn' }))).toEqual(['staging error', 'us fatal', 'eu error', 'eu warn']);
    expect(bodies(await search({ ...range, service: 'filter-svc', environment: 'production', severity: 'error' }))).toEqual(['us fatal', 'eu error']);
    expect(bodies(await search({ ...range, service: 'filter-svc', environment: 'production', severity: '14', 'attr.region': 'eu' }))).toEqual(['eu error']);
    expect(bodies(await search({ ...range, environment: 'production', severity: 'error', 'attr.region': 'eu', 'attr.shard': '3' }))).toEqual(['other service error', 'eu error']);
    expect(bodies(await search({ ...range, service: 'filter-svc', 'attr.region': 'us' }))).toEqual(['us fatal']);
    expect(bodies(await search({ ...range, service: 'filter-svc', environment: 'production', 'attr.shard': '4' }))).toEqual([]);
    // The range bounds the records by their time: the hour-earlier error is outside.
    expect(bodies(await search({ from: iso(at - 2 * hourMs), to: iso(at - minuteMs), service: 'filter-svc', severity: 'error' }))).toEqual(['an hour earlier']);
    await get('/api/v1/logs?severity=loud', 400);
    await get('/api/v1/logs?severity=25', 400);

    const trend = await get<{ interval: string; buckets: Array<{ start: string; total: number; counts: Record<string, number> }> }>(
      `/api/v1/logs/trend?from=${iso(at - 2 * hourMs)}&to=${iso(at + minuteMs)}&service=filter-svc&interval=1h`,
    );
    const total = (counts: Array<Record<string, number>>, name: string) => counts.reduce((sum, count) => sum + count[name]!, 0);
    expect(trend.interval).toBe('1h');
    expect(trend.buckets.reduce((sum, bucket) => sum + bucket.total, 0)).toBe(7);
    const counts = trend.buckets.map((bucket) => bucket.counts);
    expect([total(counts, 'info'), total(counts, 'warn'), total(counts, 'error'), total(counts, 'fatal'), total(counts, 'unspecified')]).toEqual([1, 1, 3, 1, 1]);
    // With an attribute filter (or words, or a trace) the counts come from the records themselves.
    const filtered = await get<{ buckets: Array<{ total: number; counts: Record<string, number> }> }>(
      `/api/v1/logs/trend?from=${iso(at - minuteMs)}&to=${iso(at + minuteMs)}&service=filter-svc&severity=warn&attr.region=eu&interval=1m`,
    );
    expect(filtered.buckets.reduce((sum, bucket) => sum + bucket.total, 0)).toBe(3);
    expect(total(filtered.buckets.map((bucket) => bucket.counts), 'error')).toBe(2);
  });

  it('pages newest first with a cursor that stays stable while records arrive', async () => {
    const at = start - 40 * minuteMs;
    const resource = { service: 'paging-svc', environment: 'production' };
    // Twelve records, two of them in the same millisecond.
    await send(Array.from({ length: 12 }, (_, index) => ({ time: iso(at + Math.min(index, 10) * 1_000), severityNumber: 9, body: `line ${index}` })), resource);
    const range = { from: iso(at - minuteMs), to: iso(at + minuteMs), service: 'paging-svc' };
    const everything = await search({ ...range, limit: '200' });
    expect(everything.items).toHaveLength(12);

    const seen: LogItem[] = [];
    let page = await search({ ...range, limit: '5' });
    let round = 0;
    for (;;) {
      seen.push(...page.items);
      // Records arrive between pages, newer than every page: later pages neither repeat nor skip a record.
      await send([{ time: iso(at + 30_000 + round), severityNumber: 9, body: `newer ${round}` }], resource);
      round += 1;
      if (!page.nextCursor) break;
      page = await search({ ...range, limit: '5', cursor: page.nextCursor });
    }
    expect(seen.map((item) => item.id)).toEqual(everything.items.map((item) => item.id));
    const ids = seen.map((item) => BigInt(item.id));
    expect(ids.every((id, index) => index === 0 || id < ids[index - 1]!)).toBe(true);
    expect(new Set(seen.map((item) => item.body)).size).toBe(12);
    // Records of the same millisecond keep their order of arrival (newest first: the later one first).
    expect(bodies(everything).slice(0, 2)).toEqual(['line 11', 'line 10']);
    await get(`/api/v1/logs?cursor=${encodeURIComponent('not-a-cursor')}`, 400);
  });

  it('counts log records per tenant in usage, its trend and its export', async () => {
    const at = start - 50 * minuteMs;
    await send(
      [
        { time: iso(at), body: 'a', tenantId: 'usage-a' },
        { time: iso(at + 1), body: 'b', tenantId: 'usage-a' },
        { time: iso(at + 2), body: 'c', attributes: { 'tenant.id': 'not-mapped-here' }, tenantId: 'usage-b' },
        { time: iso(at + 3), body: 'no tenant' },
      ],
      { service: 'usage-svc', environment: 'production' },
      [{ traceId: newTraceId(), spanId: newSpanId(), operation: 'op', kind: 'server', startedAt: iso(at), durationMs: 5, status: 'ok', tenantId: 'usage-a' }],
    );
    const range = `from=${iso(at - hourMs)}&to=${iso(at + hourMs)}&service=usage-svc`;
    const usage = await get<{ tenants: Array<{ tenantId: string; occurrences: number; logs: number; services: string[] }> }>(`/api/v1/usage?${range}`);
    expect(usage.tenants).toEqual([
      { tenantId: 'usage-a', occurrences: 1, errors: 0, totalDurationMs: 5, logs: 2, services: ['usage-svc'] },
      { tenantId: 'usage-b', occurrences: 0, errors: 0, totalDurationMs: 0, logs: 1, services: ['usage-svc'] },
    ]);
    const trend = await get<{ buckets: Array<{ logs: number }> }>(`/api/v1/usage/trend?${range}&interval=1h`);
    expect(trend.buckets.reduce((sum, bucket) => sum + bucket.logs, 0)).toBe(3);
    const csv = await asBrowser(app, session, { url: `/api/v1/usage/export?${range}&interval=1d` });
    const [header, ...rows] = parseCsv(csv.body);
    expect(header).toEqual(['periodStart', 'tenantId', 'service', 'environment', 'occurrences', 'errors', 'totalDurationMs', 'logs']);
    expect(rows.map((row) => [row[1], row[4], row[7]])).toEqual([
      ['usage-a', '1', '2'],
      ['usage-b', '0', '1'],
    ]);
  });

  describe('retention', () => {
    it('prunes log records, their text index and their counts once they are older than the retention (ClickHouse: once their whole day is)', async () => {
      const at = start - 55 * minuteMs;
      await send(
        Array.from({ length: 250 }, (_, index) => ({ time: iso(at + index), severityNumber: 17, body: `retained word${index % 2 ? ' zebra' : ''}`, tenantId: 'keep-me' })),
        { service: 'retention-svc', environment: 'production' },
      );
      const range = { from: iso(at - minuteMs), to: iso(at + hourMs), service: 'retention-svc' };
      expect((await search({ ...range, q: 'zebra', limit: '200' })).items).toHaveLength(125);
      // SQLite: the text index's own entries (a search joins `logs`, so it would not show stale ones).
      const sqliteIndex = app.database.dialect === 'sqlite' && !onClickHouse;
      const indexedZebras = async () =>
        sqliteIndex ? Number((await sql<{ n: number }>`select count(*) as n from logs_fts where logs_fts match 'zebra'`.execute(app.database.db)).rows[0]!.n) : 0;
      if (sqliteIndex) expect(await indexedZebras()).toBe(125);

      // Past the 14 days' retention, and past the end of the records' UTC day (ClickHouse drops whole days).
      clock.set(start + 15 * dayMs + hourMs);
      // Two weeks later the session has expired: sign in again.
      session = await firstAdminSession(app);
      const result = await app.retention.pruner.pruneOnce();
      expect(result.logRecords).toBeGreaterThanOrEqual(250);
      expect((await search({ ...range, limit: '200' })).items).toEqual([]);
      expect((await search({ ...range, q: 'zebra' })).items).toEqual([]);
      expect(await indexedZebras()).toBe(0);
      const trend = await get<{ buckets: Array<{ total: number }> }>(`/api/v1/logs/trend?from=${range.from}&to=${range.to}&service=retention-svc`);
      expect(trend.buckets.every((bucket) => bucket.total === 0)).toBe(true);
      const usage = await get<{ tenants: unknown[] }>(`/api/v1/usage?from=${range.from}&to=${range.to}&tenantId=keep-me`);
      expect(usage.tenants).toEqual([]);
      const leftInStore = await app.logStore.search({ range: { fromMs: 0, toMs: start + 16 * dayMs }, filters: {}, limit: 10 });
      expect(leftInStore).toEqual([]);
      clock.set(start);
    });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { App } from '@playstack/server-kit';
import { createTestDatabase, describeEachDatabase, type TestDatabase } from '@playstack/server-kit/testing';
import { asBrowser, setUpFirstAdmin, signIn, firstAdmin, type BrowserSession } from './support/browser-session.js';
import { envelope, minimalOccurrence, newSpanId, newTraceId } from './support/envelopes.js';
import { buildTestApp } from './support/test-app.js';
import { durationCodesWindowMax } from '../src/query/occurrences-view.js';

const key = 'occurrence-search-key-0123456789';

interface Known {
  operation: string;
  durationMs: number;
  status: 'ok' | 'error';
  statusCode?: number;
  errorType?: string;
  attributes: Record<string, string | number>;
}

/** The data set: each filter keeps a different, known subset. */
const known: Known[] = [
  { operation: 'GET /a', durationMs: 5, status: 'ok', statusCode: 200, attributes: { region: 'eu', plan: 'pro' } },
  { operation: 'GET /a', durationMs: 15, status: 'ok', statusCode: 201, attributes: { region: 'us', plan: 'pro' } },
  { operation: 'GET /a', durationMs: 40, status: 'error', statusCode: 500, errorType: 'DbError', attributes: { region: 'eu', plan: 'free' } },
  { operation: 'GET /a', durationMs: 120, status: 'error', statusCode: 503, errorType: 'TimeoutError', attributes: { region: 'eu', retries: 2 } },
  { operation: 'POST /b', durationMs: 250, status: 'ok', statusCode: 302, attributes: { region: 'us' } },
  { operation: 'POST /b', durationMs: 800, status: 'error', statusCode: 404, errorType: 'NotFound', attributes: { region: 'eu', plan: 'pro' } },
  { operation: 'POST /b', durationMs: 2500, status: 'error', statusCode: 500, errorType: 'TimeoutError', attributes: { region: 'us', plan: 'pro', retries: 2 } },
  { operation: 'job', durationMs: 60, status: 'ok', attributes: { region: 'eu' } },
];

interface Filters {
  operation?: string;
  status?: 'ok' | 'error';
  minDurationMs?: number;
  maxDurationMs?: number;
  errorType?: string;
  httpStatusClass?: string;
  attributes?: Record<string, string>;
}

/** The brute-force answer: the known rows every filter keeps. */
function expected(filters: Filters): Known[] {
  return known.filter(
    (row) =>
      (filters.operation === undefined || row.operation === filters.operation) &&
      (filters.status === undefined || row.status === filters.status) &&
      (filters.minDurationMs === undefined || row.durationMs >= filters.minDurationMs) &&
      (filters.maxDurationMs === undefined || row.durationMs <= filters.maxDurationMs) &&
      (filters.errorType === undefined || row.errorType === filters.errorType) &&
      (filters.httpStatusClass === undefined || (row.statusCode !== undefined && Math.floor(row.statusCode / 100) === Number(filters.httpStatusClass[0]))) &&
      Object.entries(filters.attributes ?? {}).every(([name, value]) => String(row.attributes[name]) === value),
  );
}

function queryString(filters: Filters): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) {
    if (name === 'attributes') for (const [attribute, text] of Object.entries(value as Record<string, string>)) params.set(`attr.${attribute}`, text);
    else params.set(name, String(value));
  }
  return params.toString();
}

const cases: Filters[] = [
  {},
  { minDurationMs: 100 },
  { maxDurationMs: 40 },
  { minDurationMs: 15, maxDurationMs: 250 },
  { minDurationMs: 120, maxDurationMs: 120 },
  { errorType: 'TimeoutError' },
  { errorType: 'Nope' },
  { httpStatusClass: '2xx' },
  { httpStatusClass: '3xx' },
  { httpStatusClass: '4xx' },
  { httpStatusClass: '5xx' },
  { attributes: { region: 'eu' } },
  { attributes: { region: 'eu', plan: 'pro' } },
  { attributes: { retries: '2' } },
  { attributes: { region: 'us' }, minDurationMs: 100 },
  { attributes: { region: 'eu' }, httpStatusClass: '5xx', status: 'error' },
  { attributes: { plan: 'pro' }, errorType: 'TimeoutError', maxDurationMs: 3000, operation: 'POST /b' },
  { operation: 'GET /a', minDurationMs: 10, httpStatusClass: '5xx' },
];

describeEachDatabase('occurrence search: duration, error type, HTTP status class and attribute filters; find by id', (database) => {
  let app: App;
  let session: BrowserSession;
  const traceIds: string[] = [];
  const spanIds: string[] = [];
  const baseMs = Date.now() - 30 * 60_000;

  beforeAll(async () => {
    app = await buildTestApp(database(), { SERVICE_API_KEY: key });
    session = await setUpFirstAdmin(app);
    const occurrences = known.map((row, index) => {
      traceIds.push(newTraceId());
      spanIds.push(newSpanId());
      return {
        traceId: traceIds[index],
        spanId: spanIds[index],
        operation: row.operation,
        kind: row.operation === 'job' ? 'internal' : 'server',
        // One second apart, newest last: the list shows them in reverse.
        startedAt: new Date(baseMs + index * 1000).toISOString(),
        durationMs: row.durationMs,
        status: row.status,
        ...(row.statusCode === undefined ? {} : { http: { method: row.operation.split(' ')[0], route: row.operation.split(' ')[1], statusCode: row.statusCode } }),
        ...(row.errorType === undefined ? {} : { error: { type: row.errorType, message: 'failed' } }),
        attributes: row.attributes,
      };
    });
    const sent = await app.inject({ method: 'POST', url: '/api/v1/ingest', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, payload: envelope(occurrences, { service: 'shop', environment: 'production' }) });
    expect(sent.statusCode, sent.body).toBe(202);
  });
  afterAll(async () => {
    await app.close();
  });

  const get = (url: string) => asBrowser(app, session, { url });

  it.each(cases.map((filters) => [queryString(filters) || '(no filter)', filters] as const))('lists exactly the occurrences %s keeps, newest first', async (_name, filters) => {
    const response = await get(`/api/v1/occurrences?${queryString(filters)}`);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as { items: Array<{ durationMs: number }>; total: number; search: unknown };
    const want = expected(filters).reverse();
    expect(body.items.map((item) => item.durationMs)).toEqual(want.map((row) => row.durationMs));
    expect(body.total).toBe(want.length);
    const rowFiltered = Object.keys(filters).some((name) => name !== 'operation' && name !== 'status');
    expect(body.search).toEqual(rowFiltered ? { window: 50_000, limited: false, searchedFrom: null } : null);
  });

  it.each(cases.filter((filters) => filters.minDurationMs === undefined && filters.maxDurationMs === undefined).map((filters) => [queryString(filters) || '(no filter)', filters] as const))(
    'spreads the durations %s keeps over log-scale bins, ten per decade',
    async (_name, filters) => {
      const response = await get(`/api/v1/occurrences/durations?${queryString(filters)}`);
      expect(response.statusCode, response.body).toBe(200);
      const body = response.json() as { bins: Array<{ fromMs: number; toMs: number; count: number; errorCount: number }>; total: number };
      const want = new Map<number, { count: number; errorCount: number }>();
      for (const row of expected(filters)) {
        const bin = Math.floor(Math.log10(row.durationMs) * 10);
        const figures = want.get(bin) ?? { count: 0, errorCount: 0 };
        want.set(bin, { count: figures.count + 1, errorCount: figures.errorCount + (row.status === 'error' ? 1 : 0) });
      }
      const bins = [...want.entries()].sort(([a], [b]) => a - b);
      expect(body.bins.map(({ count, errorCount }) => ({ count, errorCount }))).toEqual(bins.map(([, figures]) => figures));
      expect(body.total).toBe(expected(filters).length);
      // Each duration lies within its bin's bounds.
      for (const row of expected(filters)) {
        expect(body.bins.some((bin) => bin.fromMs <= row.durationMs && row.durationMs < bin.toMs), String(row.durationMs)).toBe(true);
      }
    },
  );

  it('refuses malformed duration and status class filters with 400', async () => {
    for (const query of ['minDurationMs=-1', 'maxDurationMs=abc', 'minDurationMs=200&maxDurationMs=100', 'httpStatusClass=6xx', 'httpStatusClass=5']) {
      const response = await get(`/api/v1/occurrences?${query}`);
      expect(response.statusCode, query).toBe(400);
      expect(response.json().error.code, query).toBe('invalid-request');
    }
    expect((await get('/api/v1/occurrences/durations?httpStatusClass=9xx')).statusCode).toBe(400);
  });

  describe('a search window smaller than the range', () => {
    let small: App;
    let smallSession: BrowserSession;
    beforeAll(async () => {
      small = await buildTestApp(database(), { SERVICE_API_KEY: key, OCCURRENCE_SEARCH_WINDOW: '3' });
      smallSession = await signIn(small, firstAdmin.email, firstAdmin.password);
    });
    afterAll(async () => {
      await small.close();
    });

    it('checks row filters on the newest occurrences only, and says where it stopped', async () => {
      const response = await asBrowser(small, smallSession, { url: '/api/v1/occurrences?attr.region=eu' });
      const body = response.json() as { items: Array<{ durationMs: number }>; total: number; search: unknown };
      // The newest three: job (eu), 2500 (us), 800 (eu).
      expect(body.items.map((item) => item.durationMs)).toEqual([60, 800]);
      expect(body.total).toBe(2);
      expect(body.search).toEqual({ window: 3, limited: true, searchedFrom: new Date(baseMs + 5000).toISOString() });
      const durations = (await asBrowser(small, smallSession, { url: '/api/v1/occurrences/durations' })).json() as { total: number; search: { limited: boolean } };
      expect(durations.total).toBe(3);
      expect(durations.search.limited).toBe(true);
    });

    it('counts the whole range when no filter is checked on rows', async () => {
      const body = (await asBrowser(small, smallSession, { url: '/api/v1/occurrences?status=error' })).json() as { total: number; search: unknown };
      expect(body.total).toBe(4);
      expect(body.search).toBeNull();
    });
  });

  describe('a search window above the bound of the durations code array (SQLite bins larger windows by GROUP BY)', () => {
    let large: App;
    let largeSession: BrowserSession;
    beforeAll(async () => {
      large = await buildTestApp(database(), { SERVICE_API_KEY: key, OCCURRENCE_SEARCH_WINDOW: String(durationCodesWindowMax + 1) });
      largeSession = await signIn(large, firstAdmin.email, firstAdmin.password);
    });
    afterAll(async () => {
      await large.close();
    });

    it('spreads the same durations over the same bins as the default window', async () => {
      for (const filters of cases.filter((f) => f.minDurationMs === undefined && f.maxDurationMs === undefined)) {
        const url = `/api/v1/occurrences/durations?${queryString(filters)}`;
        const expectedBody = (await get(url)).json() as { bins: unknown[]; total: number };
        const body = (await asBrowser(large, largeSession, { url })).json() as { bins: unknown[]; total: number; search: { window: number } };
        expect(body.bins, url).toEqual(expectedBody.bins);
        expect(body.total, url).toBe(expectedBody.total);
        expect(body.search.window).toBe(durationCodesWindowMax + 1);
      }
    });

    it('bins sub-millisecond durations (negative bins) alike on both paths, 1 µs and below in the lowest', async () => {
      // A day and a half back, outside the default range the other tests read.
      const atMs = baseMs - 36 * 3600_000;
      const tiny = [0.0005, 0.0005, 0.002, 0.05].map((durationMs, index) =>
        minimalOccurrence(new Date(atMs + index * 1000).toISOString(), {
          durationMs,
          ...(index === 0 ? { status: 'error', error: { type: 'TickError', message: 'failed' } } : {}),
        }),
      );
      const sent = await app.inject({ method: 'POST', url: '/api/v1/ingest', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, payload: envelope(tiny, { service: 'ticker', environment: 'production' }) });
      expect(sent.statusCode, sent.body).toBe(202);
      const url = `/api/v1/occurrences/durations?service=ticker&from=${new Date(atMs - 60_000).toISOString()}&to=${new Date(atMs + 60_000).toISOString()}`;
      for (const [target, asWho] of [[app, session], [large, largeSession]] as const) {
        const body = (await asBrowser(target, asWho, { url })).json() as { bins: Array<{ fromMs: number; count: number; errorCount: number }>; total: number };
        // floor(log10(d) * 10): 1 µs and below -> -30, 0.002 -> -27, 0.05 -> -14.
        expect(body.bins.map(({ count, errorCount }) => ({ count, errorCount }))).toEqual([
          { count: 2, errorCount: 1 },
          { count: 1, errorCount: 0 },
          { count: 1, errorCount: 0 },
        ]);
        expect(body.bins.map((bin) => bin.fromMs)).toEqual([0.001, Math.round(10 ** -2.7 * 1000) / 1000, Math.round(10 ** -1.4 * 1000) / 1000]);
        expect(body.total).toBe(4);
      }
    });
  });

  describe('find a trace by id', () => {
    it('finds a trace by its id, in either case', async () => {
      for (const id of [traceIds[2]!, traceIds[2]!.toUpperCase()]) {
        const response = await get(`/api/v1/lookup/${id}`);
        expect(response.statusCode, response.body).toBe(200);
        expect(response.json()).toEqual({ kind: 'trace', traceId: traceIds[2], spanId: null, occurrenceId: null });
      }
    });

    it('finds a span by its id, with its trace and occurrence', async () => {
      const response = await get(`/api/v1/lookup/${spanIds[5]}`);
      expect(response.statusCode, response.body).toBe(200);
      const body = response.json() as { kind: string; traceId: string; spanId: string; occurrenceId: string };
      expect(body).toMatchObject({ kind: 'span', traceId: traceIds[5], spanId: spanIds[5] });
      const occurrence = (await get(`/api/v1/occurrences/${body.occurrenceId}`)).json() as { spanId: string; durationMs: number };
      expect(occurrence).toMatchObject({ spanId: spanIds[5], durationMs: 800 });
    });

    it('says that an id is not stored', async () => {
      const trace = await get(`/api/v1/lookup/${'ab'.repeat(16)}`);
      expect(trace.statusCode).toBe(404);
      expect(trace.json().error).toMatchObject({ code: 'trace-not-found', message: expect.stringContaining(`No trace with the id ${'ab'.repeat(16)} is stored`) });
      const span = await get(`/api/v1/lookup/${'cd'.repeat(8)}`);
      expect(span.statusCode).toBe(404);
      expect(span.json().error.message).toContain(`No span with the id ${'cd'.repeat(8)} is stored`);
    });

    it('refuses what is neither a trace id nor a span id with 400', async () => {
      for (const id of ['xyz', 'ab'.repeat(12), `${'ab'.repeat(15)}zz`]) {
        const response = await get(`/api/v1/lookup/${id}`);
        expect(response.statusCode, id).toBe(400);
      }
    });

    it('needs a session', async () => {
      expect((await app.inject({ url: `/api/v1/lookup/${traceIds[0]}` })).statusCode).toBe(401);
    });
  });
});

describe("the SQLite occurrence search's window, read from the start-time index alone", () => {
  let database: TestDatabase;
  let app: App;
  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    app = await buildTestApp(database, { SERVICE_API_KEY: key });
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    await database.dispose();
  });

  const plan = async (query: ReturnType<typeof sql>) =>
    (await sql<{ detail: string }>`explain query plan ${query}`.execute(app.database.db)).rows.map((row) => row.detail).join(' | ');
  // The shapes occurrences-view.ts builds for a search without a service: the window's bounds, then the row filters.
  const window = sql`started_at >= 1 and started_at < 2 and (started_at > 1 or (started_at = 1 and id >= 5))`;

  it('checks duration, status, HTTP status class and error type without reading table rows, in list order', async () => {
    const list = await plan(sql`
      select id from occurrences where ${window} and duration_ms >= 100 and duration_ms <= 500 and http_status_code >= 500 and http_status_code < 600
      and error_type = 'TimeoutError' and status = 'error' order by started_at desc, id desc`);
    expect(list).toMatch(/SEARCH occurrences USING COVERING INDEX occurrences_started_at \(started_at>\? AND started_at<\?\)/);
    expect(list).not.toMatch(/TEMP B-TREE/);
  });

  it("draws the duration chart's window from the index alone, and finds the window's end there", async () => {
    expect(await plan(sql`select json_group_array(cast(floor(log10(max(duration_ms, 0.001)) * 10) as integer) * 2 + (status = 'error')) from occurrences where ${window}`)).toMatch(
      /^SEARCH occurrences USING COVERING INDEX occurrences_started_at /,
    );
    expect(await plan(sql`select started_at, id from occurrences where started_at >= 1 and started_at < 2 order by started_at desc, id desc limit 1 offset 49999`)).toMatch(
      /^SEARCH occurrences USING COVERING INDEX occurrences_started_at \(started_at>\? AND started_at<\?\)$/,
    );
  });
});

import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock, type App } from '@playstack/server-kit';
import { clickHouseAvailable, describeEachDatabase, startTestClickHouse, type TestClickHouse, type TestDatabase } from '@playstack/server-kit/testing';
import { recordIngestion } from '../src/storage/ingestion-counters.js';
import { normalizeStatement } from '../src/ingest/statement-normalizer.js';
import { OccurrenceWriter } from '../src/telemetry/occurrence-writer.js';
import { ClickHouseTelemetryStore } from '../src/telemetry/clickhouse/clickhouse-telemetry-store.js';
import type { NewOccurrence } from '../src/storage/storage-tables.js';
import { countedRows, exactApdex, exactQuantile, expectedEdges, figuresOf, groupBy, inRange, sum } from './support/brute-force.js';
import { generateDataSet, generatedWorker, type GeneratedDataSet } from './support/generated-occurrences.js';
import { asBrowser, setUpFirstAdmin, type BrowserSession } from './support/browser-session.js';
import { parseCsv } from './support/parse-csv.js';
import { buildTestApp } from './support/test-app.js';

const now = Date.parse('2026-11-21T12:00:00.000Z');
const hourMs = 3_600_000;
const dayMs = 24 * hourMs;
const iso = (ms: number) => new Date(ms).toISOString();

/** Percentiles come from log-bucket histograms: within 2% of the exact value (plus rounding). */
function expectWithinBucketError(actual: number | null, exact: number | null): void {
  if (exact === null) {
    expect(actual).toBeNull();
    return;
  }
  expect(actual).not.toBeNull();
  expect(Math.abs(actual! - exact)).toBeLessThanOrEqual(exact * 0.02 + 0.001);
}

/** Apdex at the default threshold (500 ms), rounded to 4 decimals as the API serves it. */
function expectApdex(actual: number | null, rows: readonly NewOccurrence[], thresholdOf: (service: string) => number = () => 500): void {
  const exact = exactApdex(rows, thresholdOf);
  if (exact === null) expect(actual).toBeNull();
  else expect(actual).toBeCloseTo(exact, 4);
}

function expectLatency(actual: { p50Ms: number | null; p95Ms: number | null; p99Ms?: number | null }, durations: number[]): void {
  expectWithinBucketError(actual.p50Ms, exactQuantile(durations, 0.5));
  expectWithinBucketError(actual.p95Ms, exactQuantile(durations, 0.95));
  if (actual.p99Ms !== undefined) expectWithinBucketError(actual.p99Ms, exactQuantile(durations, 0.99));
}

/** Newest first; rows are stored in generation order, so a later row has the larger id. */
function newestFirst(rows: readonly NewOccurrence[], all: readonly NewOccurrence[]): NewOccurrence[] {
  const position = new Map(all.map((row, index) => [row, index]));
  return [...rows].sort((a, b) => b.started_at - a.started_at || position.get(b)! - position.get(a)!);
}

/**
 * How much of the data the rollup tiers hold when the queries run: none (every figure from the
 * per-minute rollups), part (tiers plus the minutes stored since), or all.
 */
const tierStates = {
  'per-minute rollups only': 0,
  'tiers partly caught up': 0.7,
  'tiers fully caught up': 1,
} as const;

/**
 * The stores the suite runs on: the SQL store (SQLite, PostgreSQL) in each tier state, and
 * ClickHouse (CLICKHOUSE_URL; users and sessions still in SQL), where ClickHouse can run.
 */
const variants = [
  ...Object.entries(tierStates).map(([name, compactedShare]) => ({ name, store: 'sql' as const, compactedShare })),
  ...(clickHouseAvailable() ? [{ name: 'telemetry in ClickHouse', store: 'clickhouse' as const, compactedShare: 0 }] : []),
];

/** One ClickHouse server for the file, started by the first suite that needs it. */
let clickHouse: Promise<TestClickHouse> | undefined;
afterAll(async () => {
  await (await clickHouse)?.dispose();
});

for (const { name: variant, store, compactedShare } of variants) {
describeEachDatabase(`observability read API on a generated data set, ${variant}`, (database) => {
  const clock = new ManualClock(now);
  let app: App;
  let data: GeneratedDataSet;
  let lastDay: NewOccurrence[];
  let session: BrowserSession;

  beforeAll(async () => {
    data = generateDataSet(now, 1000);
    if (store === 'clickhouse') {
      const server = await (clickHouse ??= startTestClickHouse());
      app = await buildTestApp(database(), { CLICKHOUSE_URL: server.url, CLICKHOUSE_DATABASE: server.database() }, { clock });
      session = await setUpFirstAdmin(app);
      await app.telemetry.write(data.rows);
      lastDay = inRange(data.rows, now - dayMs, now);
      return;
    }
    app = await buildTestApp(database(), { ROLLUP_TIER_INTERVAL_SECONDS: '3600' }, { clock });
    session = await setUpFirstAdmin(app);
    const writer = new OccurrenceWriter({ database: app.database, clock, maxRowsPerTransaction: 10_000 });
    const compacted = Math.round(data.rows.length * compactedShare);
    await writer.write(data.rows.slice(0, compacted));
    if (compacted > 0) await app.tierCompactor.runOnce();
    await writer.write(data.rows.slice(compacted));
    lastDay = inRange(data.rows, now - dayMs, now);
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  const get = async (url: string) => {
    const response = await asBrowser(app, session, { method: 'GET', url });
    if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode} ${response.body}`);
    return response;
  };
  const getJson = async (url: string) => (await get(url)).json();

  it('lists services with environments, counts, error rate, percentiles and last seen over the last 24 hours', async () => {
    const body = await getJson('/api/v1/services');
    expect(body.from).toBe(iso(now - dayMs));
    expect(body.to).toBe(iso(now));
    const expected = groupBy(lastDay, (row) => row.service);
    const counted = groupBy(countedRows(lastDay), (row) => row.service);
    expect(body.services.map((s: { service: string }) => s.service)).toEqual([...expected.keys()].sort());
    for (const service of body.services) {
      const rows = expected.get(service.service)!;
      const figures = figuresOf(counted.get(service.service)!);
      expect(service.environments).toEqual([...new Set(rows.map((row) => row.environment))].sort());
      expect(service.countedSpans).toBe(service.service === generatedWorker ? 'root' : 'entry');
      expect(service.count).toBe(figures.count);
      expect(service.count).toBeLessThan(rows.length);
      expect(service.errorCount).toBe(figures.errorCount);
      expect(service.errorRate).toBeCloseTo(figures.errorCount / figures.count, 12);
      expectLatency(service, figures.durations);
      expectApdex(service.apdex, counted.get(service.service)!);
      expect(service.apdexThresholdMs).toBe(500);
      expect(service.lastSeenAt).toBe(iso(Math.max(...rows.map((row) => row.started_at))));
    }
  });

  it('summarizes exactly the last 24 hours by default: older data is left out', async () => {
    const body = await getJson('/api/v1/summary');
    const figures = figuresOf(countedRows(lastDay));
    expect(lastDay.length).toBeLessThan(data.rows.length);
    expect(body).toMatchObject({ count: figures.count, errorCount: figures.errorCount, services: 4 });
    expectApdex(body.apdex, countedRows(lastDay));
    expect(body.averageMs).toBeCloseTo(sum(figures.durations) / figures.count, 2);
    expect(body.maxMs).toBe(Math.max(...figures.durations));
    expect(body.perMinute).toBeCloseTo(figures.count / 1440, 9);
    expectLatency(body, figures.durations);

    const wide = await getJson(`/api/v1/summary?from=${iso(now - 4 * dayMs)}&to=${iso(now)}`);
    expect(wide.count).toBe(countedRows(data.rows).length);
  });

  it('combines the service and environment filters', async () => {
    const body = await getJson('/api/v1/summary?service=orders&environment=staging');
    const rows = countedRows(lastDay.filter((row) => row.service === 'orders' && row.environment === 'staging'));
    expect(body.count).toBe(rows.length);
    expect(body.errorCount).toBe(figuresOf(rows).errorCount);
    expectLatency(body, figuresOf(rows).durations);
    expectApdex(body.apdex, rows);
    expect(body.services).toBe(1);
    const services = await getJson('/api/v1/services?environment=staging');
    const staging = countedRows(lastDay.filter((row) => row.environment === 'staging'));
    for (const service of services.services) {
      expect(service.environments).toEqual(['staging']);
      expect(service.count).toBe(staging.filter((row) => row.service === service.service).length);
    }
    const worker = await getJson(`/api/v1/summary?service=${generatedWorker}`);
    const workerRows = countedRows(lastDay.filter((row) => row.service === generatedWorker));
    expect(workerRows.every((row) => row.kind === 'internal' && row.parent_span_id === null)).toBe(true);
    expect(worker).toMatchObject({ count: workerRows.length, errorCount: figuresOf(workerRows).errorCount });
    expectApdex(worker.apdex, workerRows);
  });

  it('trends per hour with empty buckets as zeros, every bucket matching the raw data', async () => {
    const body = await getJson('/api/v1/trend?interval=1h&service=gateway');
    expect(body.interval).toBe('1h');
    expect(body.buckets).toHaveLength(24);
    const gatewayRows = countedRows(lastDay.filter((row) => row.service === 'gateway'));
    for (const [index, bucket] of body.buckets.entries()) {
      const start = now - dayMs + index * hourMs;
      expect(bucket.start).toBe(iso(start));
      const rows = inRange(gatewayRows, start, start + hourMs);
      expect(bucket.count).toBe(rows.length);
      expect(bucket.errorCount).toBe(figuresOf(rows).errorCount);
      expectLatency(bucket, figuresOf(rows).durations);
      expectApdex(bucket.apdex, rows);
    }
    const gap = body.buckets.find((bucket: { start: string }) => bucket.start === iso(now - 10 * hourMs));
    expect(gap).toEqual({ start: iso(now - 10 * hourMs), count: 0, errorCount: 0, errorRate: 0, p50Ms: null, p95Ms: null, p99Ms: null, apdex: null });
    // Every service together, the worker counted by its root spans, bucket by bucket.
    const all = await getJson('/api/v1/trend?interval=1h');
    const allCounted = countedRows(lastDay);
    for (const [index, bucket] of all.buckets.entries()) {
      const rows = inRange(allCounted, now - dayMs + index * hourMs, now - dayMs + (index + 1) * hourMs);
      expect(bucket.count).toBe(rows.length);
      expectLatency(bucket, figuresOf(rows).durations);
      expectApdex(bucket.apdex, rows);
    }
  });

  it('chooses the trend bucket size from the range', async () => {
    const day = await getJson('/api/v1/trend');
    expect(day.interval).toBe('15m');
    expect(day.buckets).toHaveLength(96);
    expect(sum(day.buckets.map((bucket: { count: number }) => bucket.count))).toBe(countedRows(lastDay).length);
    const week = await getJson(`/api/v1/trend?from=${iso(now - 7 * dayMs)}`);
    expect(week.interval).toBe('1h');
    expect(week.buckets).toHaveLength(168);
    expect(sum(week.buckets.map((bucket: { count: number }) => bucket.count))).toBe(countedRows(data.rows).length);
  });

  /**
   * Reference top operations: per service, environment, operation, kind and whether the service's
   * figures count the spans (entry), over `rows` (the range and filters), busiest first, ties by name.
   */
  function expectedOperations(rows: readonly NewOccurrence[]) {
    const text = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    const counted = new Set(countedRows(rows));
    return [...groupBy(rows, (row) => JSON.stringify([row.service, row.environment, row.operation, row.kind, counted.has(row)])).values()]
      .map((group) => ({
        service: group[0]!.service,
        environment: group[0]!.environment,
        operation: group[0]!.operation,
        kind: group[0]!.kind,
        entry: counted.has(group[0]!),
        rows: group,
        figures: figuresOf(group),
      }))
      .sort(
        (a, b) =>
          b.figures.count - a.figures.count ||
          text(a.operation, b.operation) ||
          text(a.service, b.service) ||
          text(a.environment, b.environment) ||
          text(a.kind, b.kind) ||
          Number(b.entry) - Number(a.entry),
      );
  }

  function expectOperations(actual: Array<Record<string, unknown>>, expected: ReturnType<typeof expectedOperations>): void {
    expect(actual.map((row) => [row.service, row.environment, row.operation, row.kind, row.entry])).toEqual(
      expected.map((row) => [row.service, row.environment, row.operation, row.kind, row.entry]),
    );
    for (const [index, row] of actual.entries()) {
      const { figures, entry, rows } = expected[index]!;
      expect(row.count).toBe(figures.count);
      expect(row.errorCount).toBe(figures.errorCount);
      expect(row.errorRate).toBeCloseTo(figures.errorCount / figures.count, 12);
      expectLatency(row as { p50Ms: number | null; p95Ms: number | null; p99Ms: number | null }, figures.durations);
      if (entry) expectApdex(row.apdex as number | null, rows);
      else expect(row.apdex).toBeNull();
    }
  }

  it('lists the top 20 operations of the last 24 hours, busiest first, with exact counts and percentiles', async () => {
    const body = await getJson('/api/v1/operations');
    expect(body.from).toBe(iso(now - dayMs));
    expect(body.to).toBe(iso(now));
    const expected = expectedOperations(lastDay);
    expect(expected.length).toBeGreaterThan(20);
    expect(body.operations).toHaveLength(20);
    expectOperations(body.operations, expected.slice(0, 20));
    expect(Object.keys(body.operations[0]).sort()).toEqual(['apdex', 'count', 'entry', 'environment', 'errorCount', 'errorRate', 'kind', 'operation', 'p50Ms', 'p95Ms', 'p99Ms', 'service']);
    expect(new Set(expected.map((row) => row.kind))).toEqual(new Set(['server', 'client', 'internal', 'producer', 'consumer']));

    const entries = await getJson('/api/v1/operations?entry=true&limit=100');
    expectOperations(entries.operations, expected.filter((row) => row.entry));
    expect(entries.operations.some((row: { kind: string }) => row.kind === 'internal')).toBe(true);
    const others = await getJson('/api/v1/operations?entry=false&limit=100');
    expectOperations(others.operations, expected.filter((row) => !row.entry).slice(0, 100));

    const all = await getJson(`/api/v1/operations?limit=100&from=${iso(now - 4 * dayMs)}`);
    expectOperations(all.operations, expectedOperations(data.rows).slice(0, 100));
  });

  it('filters top operations by service and environment, and limits them', async () => {
    const rows = lastDay.filter((row) => row.service === 'orders' && row.environment === 'staging');
    const body = await getJson('/api/v1/operations?service=orders&environment=staging&limit=100');
    expectOperations(body.operations, expectedOperations(rows));
    for (const operation of body.operations) expect(operation).toMatchObject({ service: 'orders', environment: 'staging' });

    const payments = await getJson('/api/v1/operations?service=payments&limit=3');
    expectOperations(payments.operations, expectedOperations(lastDay.filter((row) => row.service === 'payments')).slice(0, 3));

    const hourFrom = now - 5 * hourMs;
    const hour = await getJson(`/api/v1/operations?from=${iso(hourFrom)}&to=${iso(hourFrom + hourMs)}&limit=100`);
    expectOperations(hour.operations, expectedOperations(inRange(data.rows, hourFrom, hourFrom + hourMs)));

    const none = await getJson('/api/v1/operations?service=nobody');
    expect(none.operations).toEqual([]);
  });

  it('lists occurrences newest first with combined filters and an exact total', async () => {
    const body = await getJson('/api/v1/occurrences?service=payments&environment=production&status=error&operation=charge');
    const rows = newestFirst(
      lastDay.filter((row) => row.service === 'payments' && row.environment === 'production' && row.status === 'error' && row.operation === 'charge'),
      data.rows,
    );
    expect(rows.length).toBeGreaterThan(0);
    expect(body.total).toBe(rows.length);
    expect(body.items.map((item: { spanId: string }) => item.spanId)).toEqual(rows.slice(0, 50).map((row) => row.span_id));
    for (const item of body.items) expect(item).toMatchObject({ service: 'payments', environment: 'production', status: 'error', operation: 'charge' });
  });

  it('serves at most 200 occurrences (limit 201 gives 200) and pages with offset', async () => {
    const all = newestFirst(lastDay, data.rows);
    const capped = await getJson('/api/v1/occurrences?limit=201');
    expect(capped.limit).toBe(200);
    expect(capped.items).toHaveLength(200);
    expect(capped.total).toBe(lastDay.length);
    const defaults = await getJson('/api/v1/occurrences');
    expect(defaults).toMatchObject({ limit: 50, offset: 0 });
    expect(defaults.items).toHaveLength(50);
    const page = await getJson('/api/v1/occurrences?limit=30&offset=200');
    expect(page.items.map((item: { spanId: string }) => item.spanId)).toEqual(all.slice(200, 230).map((row) => row.span_id));
  });

  it('counts occurrences exactly for a range that starts and ends mid-minute', async () => {
    const fromMs = now - 5 * hourMs + 30_500;
    const toMs = now - hourMs - 12_345;
    const body = await getJson(`/api/v1/occurrences?from=${iso(fromMs)}&to=${iso(toMs)}&status=ok`);
    expect(body.total).toBe(inRange(data.rows, fromMs, toMs).filter((row) => row.status === 'ok').length);
  });

  it('shows one occurrence by id with every field, and 404 for an unknown one', async () => {
    const withDetails = newestFirst(lastDay, data.rows).find((row) => row.attributes !== null && row.db_statement !== null)!;
    const listed = await getJson(`/api/v1/occurrences?limit=200&operation=query&service=${withDetails.service}&from=${iso(withDetails.started_at)}&to=${iso(withDetails.started_at + 1)}`);
    const item = listed.items.find((candidate: { spanId: string }) => candidate.spanId === withDetails.span_id);
    const one = await getJson(`/api/v1/occurrences/${item.id}`);
    expect(one).toEqual(item);
    expect(one).toMatchObject({
      traceId: withDetails.trace_id,
      startedAt: iso(withDetails.started_at),
      durationMs: withDetails.duration_ms,
      db: { system: withDetails.db_system, statement: withDetails.db_statement },
      attributes: { 'http.client_ip': '10.0.0.1', retries: 2, cached: false },
      receivedAt: iso(now),
    });
    for (const id of ['999999999', 'not-a-number', '0']) {
      const missing = await asBrowser(app, session, { method: 'GET', url: `/api/v1/occurrences/${id}` });
      expect(missing.statusCode).toBe(404);
      expect(missing.json().error).toMatchObject({ code: 'occurrence-not-found', requestId: missing.headers['x-request-id'] });
    }
  });

  it('renders a trace across three services as a waterfall tree, the orphan included', async () => {
    const body = await getJson(`/api/v1/traces/${data.traceId.toUpperCase()}`);
    expect(body).toMatchObject({ traceId: data.traceId, startedAt: iso(now - 30 * 60_000), durationMs: 120, services: ['gateway', 'orders', 'payments'], spanCount: 8, truncated: false });
    expect(body.spans.map((span: { spanId: string; depth: number; offsetMs: number; parentMissing: boolean }) => [span.spanId.slice(-2), span.depth, span.offsetMs, span.parentMissing])).toEqual([
      ['a1', 0, 0, false],
      ['a2', 1, 10, false],
      ['b1', 2, 12, false],
      ['b2', 3, 20, false],
      ['a3', 1, 70, false],
      ['c1', 2, 72, false],
      ['c2', 1, 112, false],
      ['c9', 0, 95, true],
    ]);
    expect(body.spans[5]).toMatchObject({ service: 'payments', status: 'error', error: { type: 'CardDeclined' } });
    const missing = await asBrowser(app, session, { method: 'GET', url: `/api/v1/traces/${'0'.repeat(32)}` });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('trace-not-found');
    const malformed = await asBrowser(app, session, { method: 'GET', url: '/api/v1/traces/not-a-trace' });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error.code).toBe('invalid-request');
  });

  it('groups database time per system and normalized statement', async () => {
    const body = await getJson('/api/v1/database');
    const expected = groupBy(lastDay, (row) => (row.db_system === null || row.db_statement === null ? undefined : `${row.db_system}|${normalizeStatement(row.db_system, row.db_statement)}`));
    expect(body.statements).toHaveLength(expected.size);
    for (const statement of body.statements) {
      const rows = expected.get(`${statement.system}|${statement.statement}`)!;
      expect(rows).toBeDefined();
      expect(statement.count).toBe(rows.length);
      expect(statement.errorCount).toBe(figuresOf(rows).errorCount);
      expect(statement.totalMs).toBeCloseTo(sum(figuresOf(rows).durations), 6);
      expectLatency(statement, figuresOf(rows).durations);
    }
    const totals = body.statements.map((statement: { totalMs: number }) => statement.totalMs);
    expect(totals).toEqual([...totals].sort((a, b) => b - a));
    const limited = await getJson('/api/v1/database?limit=2&service=orders');
    expect(limited.statements).toHaveLength(2);
  });

  it('lists dependency edges with counts, errors and percentiles; the service filter keeps edges touching it', async () => {
    const body = await getJson('/api/v1/dependencies');
    const expected = expectedEdges(data.rows, lastDay);
    expect(body.edges).toHaveLength(expected.size);
    for (const edge of body.edges) {
      const reference = expected.get(`${edge.source}>${edge.target}>${edge.targetKind}`)!;
      expect(reference).toBeDefined();
      expect(edge.count).toBe(reference.durations.length);
      expect(edge.errorCount).toBe(reference.errorCount);
      expectLatency(edge, reference.durations);
    }
    expect(body.edges.some((edge: { source: string; target: string }) => edge.source === 'gateway' && edge.target === 'postgresql')).toBe(true);
    // Busiest first; equal counts by source, target and kind in code-unit order (whatever the locale).
    const codeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    const documentedOrder = [...expected.values()]
      .sort((a, b) => b.durations.length - a.durations.length || codeUnits(a.source, b.source) || codeUnits(a.target, b.target) || codeUnits(a.targetKind, b.targetKind))
      .map((edge) => `${edge.source}>${edge.target}>${edge.targetKind}`);
    expect(body.edges.map((edge: { source: string; target: string; targetKind: string }) => `${edge.source}>${edge.target}>${edge.targetKind}`)).toEqual(documentedOrder);
    const orders = await getJson('/api/v1/dependencies?service=orders');
    expect(orders.edges.length).toBeGreaterThan(0);
    for (const edge of orders.edges) expect([edge.source, edge.target]).toContain('orders');
  });

  it('reports usage per tenant, and for one tenant', async () => {
    const body = await getJson('/api/v1/usage');
    const expected = groupBy(lastDay, (row) => row.tenant_id ?? undefined);
    expect(body.tenants.map((t: { tenantId: string }) => t.tenantId).sort()).toEqual([...expected.keys()].sort());
    for (const tenant of body.tenants) {
      const rows = expected.get(tenant.tenantId)!;
      expect(tenant.occurrences).toBe(rows.length);
      expect(tenant.errors).toBe(figuresOf(rows).errorCount);
      expect(tenant.totalDurationMs).toBeCloseTo(sum(figuresOf(rows).durations), 2);
      expect(tenant.services).toEqual([...new Set(rows.map((row) => row.service))].sort());
    }
    const one = await getJson(`/api/v1/usage?tenantId=${encodeURIComponent('globex, inc.')}&service=orders`);
    expect(one.tenants).toHaveLength(1);
    expect(one.tenants[0]).toMatchObject({ tenantId: 'globex, inc.', occurrences: expected.get('globex, inc.')!.filter((row) => row.service === 'orders').length, services: ['orders'] });
  });

  it('trends usage per bucket for a tenant, empty buckets as zeros', async () => {
    const tenant = 'say "hi"';
    const body = await getJson(`/api/v1/usage/trend?interval=1h&tenantId=${encodeURIComponent(tenant)}`);
    expect(body.buckets).toHaveLength(24);
    const rows = lastDay.filter((row) => row.tenant_id === tenant);
    for (const [index, bucket] of body.buckets.entries()) {
      const start = now - dayMs + index * hourMs;
      const inBucket = inRange(rows, start, start + hourMs);
      expect(bucket).toMatchObject({ start: iso(start), occurrences: inBucket.length, errors: figuresOf(inBucket).errorCount });
      expect(bucket.totalDurationMs).toBeCloseTo(sum(figuresOf(inBucket).durations), 2);
    }
    expect(body.buckets.find((bucket: { start: string }) => bucket.start === iso(now - 10 * hourMs))).toEqual({ start: iso(now - 10 * hourMs), occurrences: 0, errors: 0, totalDurationMs: 0, logs: 0 });
  });

  it('exports usage as CSV by default (header row, RFC 4180, attachment) that parses back to the JSON export', async () => {
    const range = `from=${iso(now - 3 * dayMs)}&to=${iso(now)}`;
    const csv = await get(`/api/v1/usage/export?${range}`);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toMatch(/^attachment; filename="usage-.*\.csv"$/);
    const json = await get(`/api/v1/usage/export?${range}&format=json`);
    expect(json.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(json.headers['content-disposition']).toMatch(/^attachment; filename="usage-.*\.json"$/);
    const rows = json.json().rows as Array<Record<string, string | number>>;

    const [header, ...records] = parseCsv(csv.body);
    expect(header).toEqual(['periodStart', 'tenantId', 'service', 'environment', 'occurrences', 'errors', 'totalDurationMs', 'logs']);
    expect(records).toEqual(rows.map((row) => header!.map((column) => String(row[column]))));
    expect(records.some((record) => record[1] === 'multi\nline\r\ntenant')).toBe(true);
    expect(records.some((record) => record[1] === 'say "hi"')).toBe(true);

    const covered = inRange(data.rows, now - 3 * dayMs, now).filter((row) => row.tenant_id !== null);
    const expected = groupBy(covered, (row) => JSON.stringify([iso(Math.floor(row.started_at / dayMs) * dayMs), row.tenant_id, row.service, row.environment]));
    expect(rows).toHaveLength(expected.size);
    for (const row of rows) {
      const group = expected.get(JSON.stringify([row.periodStart, row.tenantId, row.service, row.environment]))!;
      expect(row.occurrences).toBe(group.length);
      expect(row.errors).toBe(figuresOf(group).errorCount);
    }
    const order = rows.map((row) => JSON.stringify([row.periodStart, row.tenantId, row.service, row.environment]));
    expect(order).toEqual([...order].sort());
  });

  it('reports ingestion, storage, retention and database health', async () => {
    const body = await getJson('/api/v1/health');
    expect(body.database).toMatchObject({ dialect: store === 'clickhouse' ? 'clickhouse' : database().dialect, status: 'ok', message: null });
    expect(body.storage.rows.occurrences).toBe(data.rows.length);
    expect(body.storage.rows.operationRollups).toBeGreaterThan(0);
    expect(body.storage.sizeBytes).toBeGreaterThan(0);
    expect(body.retention).toEqual({ days: 14, oldestOccurrenceAt: iso(Math.min(...data.rows.map((row) => row.started_at))) });
    expect(body.ingestion.lastReceivedAt).toBe(iso(now));

    // Counted on top of whatever storing the data set recorded (in the current minute, which
    // the per-minute rate leaves out as incomplete).
    const record = async (atMs: number, accepted: number, refused: number) => {
      if (app.telemetry instanceof ClickHouseTelemetryStore) await app.telemetry.clickHouse.recordIngestionForTests(atMs, accepted, refused);
      else await recordIngestion(app.database.db, atMs, accepted, refused);
    };
    await record(now - 5 * 60_000, 300, 4);
    await record(now - 5 * 60_000 + 10_000, 150, 1);
    await record(now - 2 * dayMs, 1000, 50);
    const counted = await getJson('/api/v1/health');
    expect(counted.ingestion).toMatchObject({
      itemsPerMinute: body.ingestion.itemsPerMinute + 450 / 15,
      acceptedLast24h: body.ingestion.acceptedLast24h + 450,
      refusedLast24h: body.ingestion.refusedLast24h + 5,
    });
  });

  it.each([
    '/api/v1/services',
    '/api/v1/summary',
    '/api/v1/trend',
    '/api/v1/operations',
    '/api/v1/occurrences',
    '/api/v1/occurrences/1',
    `/api/v1/traces/${'a'.repeat(32)}`,
    '/api/v1/database',
    '/api/v1/dependencies',
    '/api/v1/usage',
    '/api/v1/usage/trend',
    '/api/v1/usage/export',
    '/api/v1/health',
  ])('refuses %s without a session (401 unauthorized)', async (url) => {
    const response = await app.inject({ method: 'GET', url });
    expect(response.statusCode).toBe(401);
    expect(response.json().error.code).toBe('unauthorized');
  });

  it.each([
    ['/api/v1/summary?from=yesterday', /from must be an ISO 8601 timestamp/],
    [`/api/v1/trend?from=${iso(now)}&to=${iso(now - 1)}`, /must not be after to/],
    ['/api/v1/trend?interval=2m', /interval/],
    [`/api/v1/trend?interval=1m&from=${iso(now - 7 * dayMs)}`, /buckets/],
    ['/api/v1/operations?limit=0', /limit/],
    ['/api/v1/operations?limit=101', /limit/],
    ['/api/v1/operations?limit=ten', /limit/],
    ['/api/v1/operations?from=2026-02-30', /from/],
    ['/api/v1/occurrences?limit=0', /limit/],
    ['/api/v1/occurrences?status=maybe', /status/],
    ['/api/v1/occurrences?offset=-1', /offset/],
    ['/api/v1/usage/export?format=xml', /format/],
    ['/api/v1/usage/export?interval=1m&from=2026-01-01', /buckets/],
  ])('answers %s with a 400 envelope', async (url, message) => {
    const response = await asBrowser(app, session, { method: 'GET', url });
    expect(response.statusCode).toBe(400);
    const body = response.json();
    expect(body.error.code).toBe('invalid-request');
    expect(body.error.message).toMatch(message);
    expect(body.error.requestId).toBe(response.headers['x-request-id']);
  });
});
}

/**
 * Runs `body` on an app whose tiers hold `rows` (written, then compacted once), signed in, with a
 * writer for rows the test adds after the compaction; closes the app after.
 */
async function withTiersCaughtUp(
  database: TestDatabase,
  rows: readonly NewOccurrence[],
  body: (context: { app: App; session: BrowserSession; writer: OccurrenceWriter }) => Promise<void>,
): Promise<void> {
  const clock = new ManualClock(now);
  const app = await buildTestApp(database, { ROLLUP_TIER_INTERVAL_SECONDS: '3600' }, { clock });
  try {
    const session = await setUpFirstAdmin(app);
    const writer = new OccurrenceWriter({ database: app.database, clock, maxRowsPerTransaction: 10_000 });
    await writer.write(rows);
    await app.tierCompactor.runOnce();
    await body({ app, session, writer });
  } finally {
    await app.close();
  }
}

describeEachDatabase('dependency edges over the dependency tiers', (database) => {
  it('stays exact with the tiers caught up and a few minutes written since, over aligned and unaligned ranges', async () => {
    const compacted = generateDataSet(now, 800).rows;
    await withTiersCaughtUp(database(), compacted, async ({ app, session, writer }) => {
      // The unaligned ends read 5-minute buckets, one-minute ones only for the odd minutes.
      const fiveMinuteRows = await app.database.db
        .selectFrom('dependency_tiers' as never)
        .select((eb) => eb.fn.countAll().as('n'))
        .where('tier_ms' as never, '=', (5 * 60_000) as never)
        .executeTakeFirstOrThrow();
      expect(Number((fiveMinuteRows as { n: unknown }).n)).toBeGreaterThan(0);
      // Written after the compactor ran: dirty minutes the view must read from the per-minute rollups.
      // (Another seed's traces; its hand-built trace has the same ids as the first one's, so it is left out.)
      const earlierTraces = new Set(compacted.map((row) => row.trace_id));
      const late = generateDataSet(now, 60, 99)
        .rows.filter((row) => !earlierTraces.has(row.trace_id))
        .map((row, index) => ({ ...row, started_at: now - 3 * hourMs + (index % 2) * 60_000 + 1_000 }));
      await writer.write(late);
      const all = [...compacted, ...late];
      for (const [fromMs, toMs] of [
        [now - dayMs, now],
        [now - 5 * hourMs - 7 * 60_000 - 30_000, now - hourMs + 13 * 60_000 + 5_000],
        [now - dayMs + 3 * 60_000 + 11_000, now - 2 * 60_000 - 500],
        [now - 20 * 60_000 - 1, now - 4 * 60_000],
      ] as const) {
        const query = `from=${iso(fromMs)}&to=${iso(toMs)}`;
        const response = await asBrowser(app, session, { method: 'GET', url: `/api/v1/dependencies?${query}` });
        expect(response.statusCode).toBe(200);
        // Rollup views count whole minutes touching the range.
        const counted = inRange(all, Math.floor(fromMs / 60_000) * 60_000, Math.ceil(toMs / 60_000) * 60_000);
        const expected = expectedEdges(all, counted);
        const edges = response.json().edges as Array<{ source: string; target: string; targetKind: string; count: number; errorCount: number; p50Ms: number | null; p95Ms: number | null }>;
        expect(edges.map((edge) => `${edge.source}>${edge.target}>${edge.targetKind}:${edge.count}`).sort(), query).toEqual(
          [...expected.values()].map((edge) => `${edge.source}>${edge.target}>${edge.targetKind}:${edge.durations.length}`).sort(),
        );
        for (const edge of edges) {
          const reference = expected.get(`${edge.source}>${edge.target}>${edge.targetKind}`)!;
          expect(edge.errorCount).toBe(reference.errorCount);
          expectLatency(edge, reference.durations);
        }
      }
    });
  });
});

describeEachDatabase('top operations over the operation tiers', (database) => {
  it('stays exact with the tiers caught up and a few minutes written since, over aligned and unaligned ranges', async () => {
    const compacted = generateDataSet(now, 600).rows;
    await withTiersCaughtUp(database(), compacted, async ({ app, session, writer }) => {
      const tierRows = await app.database.db.selectFrom('operation_tiers' as never).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
      expect(Number((tierRows as { n: unknown }).n)).toBeGreaterThan(0);
      // Written after the compactor ran: two dirty minutes the view must read from the per-minute rollups.
      const late = generateDataSet(now, 40, 99).rows.filter((row) => row.parent_span_id === null).map((row, index) => ({ ...row, started_at: now - 3 * hourMs + (index % 2) * 60_000 + 1_000 }));
      await writer.write(late);
      const all = [...compacted, ...late];
      const text = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
      const expectOperations = async (fromMs: number, toMs: number, service: string | undefined) => {
        const query = `from=${iso(fromMs)}&to=${iso(toMs)}&limit=100${service ? `&service=${service}` : ''}`;
        const response = await asBrowser(app, session, { method: 'GET', url: `/api/v1/operations?${query}` });
        expect(response.statusCode).toBe(200);
        // Rollup views count whole minutes touching the range.
        const rows = inRange(all, Math.floor(fromMs / 60_000) * 60_000, Math.ceil(toMs / 60_000) * 60_000).filter((row) => service === undefined || row.service === service);
        const expected = [...groupBy(rows, (row) => JSON.stringify([row.service, row.environment, row.operation, row.kind])).values()].sort(
          (a, b) => b.length - a.length || text(a[0]!.operation, b[0]!.operation) || text(a[0]!.service, b[0]!.service) || text(a[0]!.environment, b[0]!.environment) || text(a[0]!.kind, b[0]!.kind),
        );
        const operations = response.json().operations as Array<{ operation: string; service: string; count: number; errorCount: number; p50Ms: number | null; p95Ms: number | null; p99Ms: number | null }>;
        expect(operations.map((row) => `${row.service}/${row.operation}:${row.count}`), query).toEqual(expected.slice(0, 100).map((group) => `${group[0]!.service}/${group[0]!.operation}:${group.length}`));
        for (const [index, row] of operations.entries()) {
          expect(row.errorCount).toBe(figuresOf(expected[index]!).errorCount);
          expectLatency(row, figuresOf(expected[index]!).durations);
        }
        return operations;
      };
      for (const [fromMs, toMs, service] of [
        [now - dayMs, now, undefined],
        [now - 5 * hourMs - 7 * 60_000 - 30_000, now - hourMs + 13 * 60_000 + 5_000, undefined],
        [now - dayMs, now, 'orders'],
        // Over 64 buckets: the busiest operations' histograms read by id over bucket ranges, not one by one.
        [now - 20 * dayMs - 7 * 60_000, now, undefined],
      ] as const)
        await expectOperations(fromMs, toMs, service);
      // A key the compactor first names after the view has read (and kept) the names of the others:
      // the new id is named from the dictionary, the ones read before stay right.
      const addedOperation = 'GET /added-after-the-first-reads';
      const added = generateDataSet(now, 60, 123)
        .rows.filter((row) => row.parent_span_id === null)
        .map((row, index) => ({ ...row, operation: addedOperation, started_at: now - 6 * hourMs + index * 1_000 }));
      await writer.write(added);
      all.push(...added);
      await app.tierCompactor.runOnce();
      const named = await app.database.db.selectFrom('operation_keys' as never).select('operation' as never).where('operation' as never, '=', addedOperation as never).execute();
      expect(named.length).toBeGreaterThan(0);
      expect(added.length).toBeGreaterThan(5);
      const afterAdding = await expectOperations(now - dayMs + 11_000, now, undefined);
      expect(afterAdding.some((row) => row.operation === addedOperation)).toBe(true);
      // An operation filter counts an occurrence list's whole minutes from the same tiers (no grouping).
      const { service, operation } = all[0]!;
      const fromMs = now - dayMs + 17_000;
      const list = await asBrowser(app, session, { method: 'GET', url: `/api/v1/occurrences?from=${iso(fromMs)}&to=${iso(now)}&service=${service}&operation=${encodeURIComponent(operation)}&limit=1` });
      expect(list.statusCode).toBe(200);
      const matching = inRange(all, fromMs, now).filter((row) => row.service === service && row.operation === operation);
      expect(matching.length).toBeGreaterThan(10);
      expect(list.json().total).toBe(matching.length);
    });
  }, 120_000); // generates, writes and compacts days of data: 15-40 s on a loaded 2-core machine
});

describeEachDatabase('rollup tiers and retention', (database) => {
  it('drops tier buckets that ended before the retention cutoff and keeps the rest', async () => {
    const clock = new ManualClock(now);
    const app = await buildTestApp(database(), { ROLLUP_TIER_INTERVAL_SECONDS: '3600', RETENTION_DAYS: '2' }, { clock });
    try {
      const session = await setUpFirstAdmin(app);
      const data = generateDataSet(now, 300);
      await new OccurrenceWriter({ database: app.database, clock, maxRowsPerTransaction: 10_000 }).write(data.rows);
      const cutoff = now - 2 * dayMs;
      await app.tierCompactor.runOnce();
      await app.retention.pruner.pruneOnce();
      const remaining = await app.database.db.selectFrom('service_tiers').select(['tier_ms', 'bucket']).execute();
      expect(remaining.length).toBeGreaterThan(0);
      for (const row of remaining) expect(Number(row.bucket) + Number(row.tier_ms)).toBeGreaterThan(cutoff);
      const recent = await asBrowser(app, session, { method: 'GET', url: `/api/v1/summary?from=${iso(cutoff + hourMs)}&to=${iso(now)}` });
      expect(recent.json().count).toBe(countedRows(inRange(data.rows, cutoff + hourMs, now)).length);
    } finally {
      await app.close();
    }
  }, 120_000);
});

import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock, type App } from '@playstack/server-kit';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { LatencyHistogram } from '../src/storage/latency-histogram.js';
import { OccurrenceWriter } from '../src/telemetry/occurrence-writer.js';
import type { NewOccurrence } from '../src/storage/storage-tables.js';
import { countedRows, exactApdex, figuresOf, groupBy, inRange } from './support/brute-force.js';
import { asBrowser, invitedUser, setUpFirstAdmin, type BrowserSession } from './support/browser-session.js';
import { generateDataSet, generatedWorker } from './support/generated-occurrences.js';
import { databaseMigratedUpTo, insertRow } from './support/legacy-database.js';
import { buildTestApp } from './support/test-app.js';

const now = Date.parse('2026-11-21T12:00:00.000Z');
const hourMs = 3_600_000;
const dayMs = 24 * hourMs;
const iso = (ms: number) => new Date(ms).toISOString();

function expectApdex(actual: number | null, rows: readonly NewOccurrence[], thresholdOf: (service: string) => number): void {
  const exact = exactApdex(rows, thresholdOf);
  if (exact === null) expect(actual).toBeNull();
  else expect(actual).toBeCloseTo(exact, 4);
}

describeEachDatabase('Apdex thresholds per service', (database) => {
  const clock = new ManualClock(now);
  let app: App;
  let admin: BrowserSession;
  let member: BrowserSession;
  let lastDay: NewOccurrence[];
  const get = async (session: BrowserSession, url: string) => {
    const response = await asBrowser(app, session, { method: 'GET', url });
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  };

  beforeAll(async () => {
    app = await buildTestApp(database(), { ROLLUP_TIER_INTERVAL_SECONDS: '3600' }, { clock });
    admin = await setUpFirstAdmin(app);
    member = await invitedUser(app, admin, 'member@example.com');
    const data = generateDataSet(now, 1500, 11);
    const writer = new OccurrenceWriter({ database: app.database, clock, maxRowsPerTransaction: 10_000 });
    await writer.write(data.rows.slice(0, 1000));
    await app.tierCompactor.runOnce();
    await writer.write(data.rows.slice(1000));
    lastDay = inRange(data.rows, now - dayMs, now);
  });
  afterAll(async () => {
    await app.close();
  });

  it('uses the default threshold until one is set, and lets a signed-in member set it with the CSRF token', async () => {
    expect(await get(member, '/api/v1/services/payments/settings')).toEqual({ service: 'payments', apdexThresholdMs: 500, apdexThresholdIsDefault: true, updatedAt: null });
    const url = '/api/v1/services/payments/settings';
    const signedOut = await app.inject({ method: 'PUT', url, payload: { apdexThresholdMs: 100 } });
    expect(signedOut.statusCode).toBe(401);
    const withoutCsrf = await asBrowser(app, member, { method: 'PUT', url, payload: { apdexThresholdMs: 100 }, headers: { 'x-csrf-token': 'wrong' } });
    expect(withoutCsrf.statusCode).toBe(403);
    expect(withoutCsrf.json().error.code).toBe('csrf-failed');
    for (const payload of [{ apdexThresholdMs: 0 }, { apdexThresholdMs: 'fast' }, { apdexThresholdMs: 100, extra: true }, {}]) {
      const bad = await asBrowser(app, member, { method: 'PUT', url, payload });
      expect(bad.statusCode, JSON.stringify(payload)).toBe(400);
      expect(bad.json().error.code).toBe('invalid-request');
    }
    const set = await asBrowser(app, member, { method: 'PUT', url, payload: { apdexThresholdMs: 100 } });
    expect(set.statusCode).toBe(200);
    expect(set.json()).toEqual({ service: 'payments', apdexThresholdMs: 100, apdexThresholdIsDefault: false, updatedAt: iso(now) });
    expect(await get(admin, url)).toMatchObject({ apdexThresholdMs: 100, apdexThresholdIsDefault: false });
  });

  it('computes every service’s Apdex at its own threshold: services, summary, trend and operations equal the brute force', async () => {
    const thresholdOf = (service: string) => (service === 'payments' ? 100 : 500);
    const counted = countedRows(lastDay);
    const services = await get(admin, '/api/v1/services');
    const byService = groupBy(counted, (row) => row.service);
    for (const service of services.services) {
      expect(service.apdexThresholdMs).toBe(thresholdOf(service.service));
      expectApdex(service.apdex, byService.get(service.service)!, thresholdOf);
    }
    expectApdex((await get(admin, '/api/v1/summary')).apdex, counted, thresholdOf);
    expectApdex((await get(admin, '/api/v1/summary?service=payments')).apdex, byService.get('payments')!, thresholdOf);
    const paymentsOnly = exactApdex(byService.get('payments')!, thresholdOf);
    expect(paymentsOnly).not.toBeCloseTo(exactApdex(byService.get('payments')!, () => 500)!, 2);

    // Thresholds differ between services, so the trend reads per service and sums the counts.
    const trend = await get(admin, '/api/v1/trend?interval=1h');
    for (const [index, bucket] of trend.buckets.entries()) {
      const rows = inRange(counted, now - dayMs + index * hourMs, now - dayMs + (index + 1) * hourMs);
      expect(bucket.count).toBe(rows.length);
      expectApdex(bucket.apdex, rows, thresholdOf);
    }

    const operations = await get(admin, '/api/v1/operations?service=payments&entry=true&limit=100');
    const expected = groupBy(byService.get('payments')!, (row) => `${row.environment}|${row.operation}|${row.kind}`);
    expect(operations.operations).toHaveLength(expected.size);
    for (const operation of operations.operations) {
      const rows = expected.get(`${operation.environment}|${operation.operation}|${operation.kind}`)!;
      expect(operation.count).toBe(figuresOf(rows).count);
      expectApdex(operation.apdex, rows, thresholdOf);
    }
  });
});

describeEachDatabase('upgrading a database whose operation rollups counted every span', (database) => {
  let app: App | undefined;
  afterAll(async () => {
    await app?.close();
  });

  it('rebuilds the operation rollups with span roles at start: figures count entry spans, Apdex included', async () => {
    const data = generateDataSet(now, 400, 5);
    const legacy = await databaseMigratedUpTo(database(), '2026-11-27-01-statement-shapes');
    // What the previous release stored: raw rows, and operation rollups per minute, operation and kind.
    const legacyColumns = [
      'client_id', 'trace_id', 'span_id', 'parent_span_id', 'service', 'environment', 'service_version', 'instance', 'operation', 'kind', 'started_at',
      'duration_ms', 'status', 'tenant_id', 'http_method', 'http_route', 'http_status_code', 'db_system', 'db_statement', 'db_statement_hash', 'db_operation',
      'peer_service', 'peer_address', 'error_type', 'error_message', 'error_stack', 'attributes',
    ] as const;
    for (const row of data.rows) await insertRow(legacy, 'occurrences', { ...Object.fromEntries(legacyColumns.map((column) => [column, row[column]])), received_at: now });
    const cells = groupBy(data.rows, (row) => JSON.stringify([row.started_at - (row.started_at % 60_000), row.service, row.environment, row.operation, row.kind]));
    for (const [key, rows] of cells) {
      const [minute, service, environment, operation, kind] = JSON.parse(key) as [number, string, string, string, string];
      const histogram = new LatencyHistogram();
      for (const row of rows) histogram.record(row.duration_ms);
      await insertRow(legacy, 'operation_rollups', {
        minute, service, environment, operation, kind, count: rows.length, error_count: figuresOf(rows).errorCount,
        duration_sum_ms: rows.reduce((total, row) => total + row.duration_ms, 0), duration_max_ms: Math.max(...rows.map((row) => row.duration_ms)), histogram: histogram.encode(),
      });
    }
    await legacy.close();

    app = await buildTestApp(database(), {}, { clock: new ManualClock(now) });
    const session = await setUpFirstAdmin(app);
    const lastDay = inRange(data.rows, now - dayMs, now);
    const counted = countedRows(lastDay);
    const summary = (await asBrowser(app, session, { method: 'GET', url: '/api/v1/summary' })).json();
    expect(summary.count).toBe(counted.length);
    expect(summary.count).toBeLessThan(lastDay.length);
    expect(summary.errorCount).toBe(figuresOf(counted).errorCount);
    expectApdex(summary.apdex, counted, () => 500);
    const services = (await asBrowser(app, session, { method: 'GET', url: '/api/v1/services' })).json();
    expect(services.services.find((row: { service: string }) => row.service === generatedWorker)).toMatchObject({
      countedSpans: 'root',
      count: counted.filter((row) => row.service === generatedWorker).length,
    });
    // The tiers are rebuilt by the compactor from the new rollups, to the same figures.
    await app.tierCompactor.runOnce();
    expect((await asBrowser(app, session, { method: 'GET', url: '/api/v1/summary' })).json()).toEqual(summary);
  }, 120_000); // writes, rebuilds and compacts a generated data set: up to 43 s on a loaded 2-core machine
});

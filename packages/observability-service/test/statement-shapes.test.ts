import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock, type App } from '@playstack/server-kit';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { LatencyHistogram } from '../src/storage/latency-histogram.js';
import { asBrowser, firstAdminSession, type BrowserSession } from './support/browser-session.js';
import { envelope, minimalOccurrence, newSpanId, newTraceId } from './support/envelopes.js';
import { databaseMigratedUpTo, insertRow } from './support/legacy-database.js';
import { buildTestApp } from './support/test-app.js';
import type { DatabaseResponse } from '../src/query/query-schemas.js';

const key = 'statement-shapes-key-0123456789';
const now = Date.parse('2026-11-27T12:00:00.000Z');

function dbCall(system: string, statement: string, startedAt: number, durationMs: number) {
  return minimalOccurrence(new Date(startedAt).toISOString(), { kind: 'client', operation: `${system} call`, durationMs, db: { system, statement } });
}

async function ingest(app: App, occurrences: unknown[]): Promise<void> {
  const response = await app.inject({ method: 'POST', url: '/api/v1/ingest', headers: { authorization: `Bearer ${key}` }, payload: envelope(occurrences, { service: 'worker', environment: 'production' }) });
  expect(response.json().accepted.occurrences).toBe(occurrences.length);
}

async function statements(app: App, session: BrowserSession): Promise<DatabaseResponse['statements']> {
  const response = await asBrowser(app, session, { method: 'GET', url: `/api/v1/database?from=${new Date(now - 3_600_000).toISOString()}&to=${new Date(now + 60_000).toISOString()}` });
  expect(response.statusCode).toBe(200);
  return (response.json() as DatabaseResponse).statements;
}

describeEachDatabase('database statements grouped by system', (database) => {
  let app: App;
  let session: BrowserSession;
  beforeAll(async () => {
    app = await buildTestApp(database(), { SERVICE_API_KEY: key }, { clock: new ManualClock(now) });
    session = await firstAdminSession(app);
  });
  afterAll(async () => {
    await app.close();
  });

  it('groups Redis commands on keys with colons by command and key shape, beside SQL and MongoDB', async () => {
    await ingest(app, [
      dbCall('redis', 'GET queue:eu-west', now - 60_000, 2),
      dbCall('redis', 'GET queue:us-east', now - 50_000, 4),
      dbCall('redis', 'get queue:ap-south', now - 40_000, 6),
      dbCall('redis', 'SET session:5f2b8c9e [1 other arguments]', now - 30_000, 1),
      dbCall('postgresql', 'SELECT * FROM orders WHERE id = $1::bigint', now - 20_000, 3),
      dbCall('postgresql', 'SELECT * FROM orders WHERE id = 42', now - 10_000, 5),
      dbCall('mongodb', '{"find":"orders","filter":{"status":"open"}}', now - 5_000, 7),
      dbCall('elasticsearch', 'GET /orders/_search', now - 4_000, 8),
    ]);
    const rows = await statements(app, session);
    const bySystemAndText = new Map(rows.map((row) => [`${row.system} ${row.statement}`, row]));
    expect(bySystemAndText.get('redis GET queue:?')).toMatchObject({ count: 3, operation: 'GET', totalMs: 12 });
    expect(bySystemAndText.get('redis SET session:?')).toMatchObject({ count: 1, operation: 'SET' });
    expect(bySystemAndText.get('postgresql SELECT * FROM orders WHERE id = ?')).toMatchObject({ count: 2, operation: 'SELECT' });
    expect(bySystemAndText.get('mongodb find orders {"status":?}')).toMatchObject({ count: 1, operation: 'FIND' });
    expect(bySystemAndText.get('elasticsearch GET /orders/_search')).toMatchObject({ count: 1 });
    expect(rows).toHaveLength(5);
  });
});

describeEachDatabase('upgrading a database whose statements were grouped by the old rules', (database) => {
  let app: App | undefined;
  afterAll(async () => {
    await app?.close();
  });

  it('rebuilds the database rollups at start, so old and new statements share one shape', async () => {
    // What the release before statement shapes by system stored: raw rows, and rollups keyed by
    // the old shapes (`:eu` read as a named SQL placeholder).
    const legacy = await databaseMigratedUpTo(database(), '2026-11-26-01-logs');
    const minute = now - 60_000 - ((now - 60_000) % 60_000);
    const stored = [
      { statement: 'GET queue:eu-west', oldShape: 'GET queue?-west', durationMs: 2 },
      { statement: 'GET queue:us-east', oldShape: 'GET queue?-east', durationMs: 4 },
    ];
    for (const [index, row] of stored.entries()) {
      await insertRow(legacy, 'occurrences', {
        trace_id: newTraceId(), span_id: newSpanId(), service: 'worker', environment: 'production', operation: 'redis call', kind: 'client',
        started_at: minute + index * 1000, duration_ms: row.durationMs, status: 'ok', db_system: 'redis', db_statement: row.statement,
        db_statement_hash: `old${index}`, db_operation: 'GET', received_at: now - 1000,
      });
      await insertRow(legacy, 'statement_rollups', {
        minute, service: 'worker', environment: 'production', db_system: 'redis', statement_hash: `old${index}`, statement: row.oldShape, db_operation: 'GET',
        count: 1, error_count: 0, duration_sum_ms: row.durationMs, duration_max_ms: row.durationMs, histogram: new LatencyHistogram().record(row.durationMs).encode(),
      });
    }
    await legacy.close();

    app = await buildTestApp(database(), { SERVICE_API_KEY: key }, { clock: new ManualClock(now) });
    await ingest(app, [dbCall('redis', 'GET queue:ap-south', now - 30_000, 6)]);
    const session = await firstAdminSession(app);
    const rows = await statements(app, session);
    expect(rows.map((row) => [row.system, row.statement, row.count, row.totalMs])).toEqual([['redis', 'GET queue:?', 3, 12]]);
    const hashes = await app.database.db.selectFrom('occurrences').select('db_statement_hash').distinct().execute();
    expect(hashes).toHaveLength(1);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { ManualClock, type App } from '@playstack/server-kit';
import { createTestDatabase, describeEachDatabase, type TestDatabase } from '@playstack/server-kit/testing';
import type { NewLogRecord } from '../src/logs/index.js';
import { bucketStartMs, idBucketMs, idsBefore } from '../src/logs/log-ids.js';
import { blockRecords, maxRuns, partEntryBytes, runEntryBytes } from '../src/logs/log-trace-directory.js';
import { traceKey, traceParts } from '../src/logs/log-trace-key.js';
import { traceRecordsSource } from '../src/logs/sql-log-store.js';
import { asBrowser, setUpFirstAdmin, type BrowserSession } from './support/browser-session.js';
import { envelope, newTraceId } from './support/envelopes.js';
import { buildTestApp } from './support/test-app.js';

const key = 'trace-directory-test-key-0123456789';
const minuteMs = 60_000;
const start = Date.parse('2026-12-07T12:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

/** `count` records at `timeMs` (plus their index in ms), each with its own random trace id unless `traceOf` names one. */
function records(count: number, timeMs: number, body: (index: number) => string, traceOf: (index: number) => string = () => newTraceId()): NewLogRecord[] {
  return Array.from({ length: count }, (_, index) => ({
    time_ms: timeMs + index, time_ns: 0, observed_ms: timeMs, severity_number: 9, severity_text: null, body: body(index), body_json: 0, event_name: null,
    service: 'bulk-svc', environment: 'production', service_version: null, instance: null, scope_name: null, scope_version: null,
    trace_id: traceOf(index), span_id: null, flags: 0, tenant_id: null, attributes: null, resource_attributes: null,
  }));
}

describe('trace keys', () => {
  it('spread ids that differ in one character, at either end, over parts and prints', () => {
    const ids = Array.from({ length: 4096 }, (_, n) => `0af7651916cd43dd8448eb211c80${n.toString(16).padStart(4, '0')}`);
    expect(new Set(ids.map((id) => traceKey(id) % traceParts)).size).toBe(traceParts);
    expect(new Set(ids.map((id) => Math.floor(traceKey(id) / traceParts))).size).toBe(ids.length);
    const prefixed = ids.map((id) => id.split('').reverse().join(''));
    expect(new Set(prefixed.map((id) => traceKey(id) % traceParts)).size).toBe(traceParts);
    for (const id of ids.slice(0, 20)) expect(traceKey(id)).toBeLessThan(2 ** 40);
  });
});

describeEachDatabase('log records by trace id', (database) => {
  const clock = new ManualClock(start);
  let app: App;
  let session: BrowserSession;
  beforeAll(async () => {
    app = await buildTestApp(database(), { SERVICE_API_KEY: key, INGEST_RATE_LIMIT_PER_SECOND: '100000' }, { clock });
    await app.ready();
    session = await setUpFirstAdmin(app);
  });
  afterAll(async () => {
    await app.close();
  });

  const send = async (logs: unknown[], service = 'directory-svc') => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/ingest',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ ...envelope([], { service, environment: 'production' }), logs }),
    });
    expect(response.statusCode, response.body).toBe(202);
  };
  const traceBodies = async (traceId: string) => (await app.logStore.traceLogs(traceId, 1_000)).map((row) => row.body);

  it('finds every record of a trace, in time order, across more transactions than the runs hold', async () => {
    const followed = newTraceId();
    // More transactions than the runs hold (on SQLite the first ones are folded before the last arrive).
    const requests = maxRuns + 50;
    const at = (request: number) => start - 50 * minuteMs + request * 1_000;
    for (let request = 0; request < requests; request++) {
      const traced = request % 100 === 0 ? followed : newTraceId();
      await send([
        { time: iso(at(request) + 5), severityNumber: 9, body: `step ${request} of ${traced === followed ? 'followed' : 'other'}`, traceId: traced },
        { time: iso(at(request)), severityNumber: 9, body: `untraced ${request}` },
      ]);
    }
    expect(await traceBodies(followed)).toEqual(['step 0 of followed', 'step 100 of followed', 'step 200 of followed', 'step 300 of followed']);
    // A range finds the trace's records in it, and only those; the search joins its other filters.
    const page = await app.logStore.search({ range: { fromMs: at(150), toMs: at(250) }, filters: {}, traceId: followed, limit: 10 });
    expect(page.map((row) => row.body)).toEqual(['step 200 of followed']);
    const worded = await app.logStore.search({ range: { fromMs: at(0), toMs: at(requests) }, filters: {}, traceId: followed, terms: ['step', '300'], limit: 10 });
    expect(worded.map((row) => row.body)).toEqual(['step 300 of followed']);
    const ofService = await app.logStore.search({ range: { fromMs: at(0), toMs: at(requests) }, filters: { service: 'directory-svc' }, traceId: followed, limit: 2 });
    expect(ofService.map((row) => row.body)).toEqual(['step 300 of followed', 'step 200 of followed']);
    const elsewhere = await app.logStore.search({ range: { fromMs: at(0), toMs: at(requests) }, filters: { service: 'no-such-svc' }, traceId: followed, limit: 10 });
    expect(elsewhere).toEqual([]);
    const trend = await app.logStore.trend({ range: { fromMs: at(0), toMs: at(requests) }, filters: {}, traceId: followed }, 3_600_000);
    expect(trend.reduce((sum, bucket) => sum + bucket.count, 0)).toBe(4);
  });

  it('finds the records of requests committed together, and their words', async () => {
    const traced = newTraceId();
    const at = start - 40 * minuteMs;
    // Written at once, so the group commit stores them in one transaction.
    await Promise.all(
      Array.from({ length: 6 }, (_, request) =>
        app.telemetry.write([], 0, records(50, at + (5 - request) * 100, (index) => `grouped ${request}.${index}`, (index) => (index === 7 ? traced : newTraceId()))),
      ),
    );
    expect(await traceBodies(traced)).toEqual([5, 4, 3, 2, 1, 0].map((request) => `grouped ${request}.7`));
    const range = { fromMs: at, toMs: at + minuteMs };
    expect((await app.logStore.search({ range, filters: {}, terms: ['grouped'], limit: 1_000 })).length).toBe(300);
  });

  it('shows a page by time though records of one id bucket arrived out of time order', async () => {
    const bucketStart = bucketStartMs(start - 30 * 1_000);
    // Two senders' records of the same bucket; the later-timed arrive first.
    await send([{ time: iso(bucketStart + 80), severityNumber: 9, body: 'late in the bucket' }], 'order-a');
    await send([{ time: iso(bucketStart + 10), severityNumber: 9, body: 'early in the bucket' }], 'order-b');
    await send([{ time: iso(bucketStart + idBucketMs + 1), severityNumber: 9, body: 'next bucket' }], 'order-b');
    // The store answers in id order: between buckets by time, within one by arrival.
    const rows = await app.logStore.search({ range: { fromMs: bucketStart, toMs: bucketStart + 2 * idBucketMs }, filters: {}, limit: 10 });
    expect(rows.map((row) => row.body)).toEqual(['next bucket', 'early in the bucket', 'late in the bucket']);
    // The API shows each page by time, newest first; paging by its cursor still visits every record once.
    const page = async (cursor?: string) => {
      const query = new URLSearchParams({ from: iso(bucketStart), to: iso(bucketStart + 2 * idBucketMs), limit: '2', ...(cursor ? { cursor } : {}) });
      const response = await asBrowser(app, session, { url: `/api/v1/logs?${query.toString()}` });
      expect(response.statusCode, response.body).toBe(200);
      return response.json() as { items: Array<{ body: string }>; nextCursor: string | null };
    };
    const first = await page();
    expect(first.items.map((item) => item.body)).toEqual(['next bucket', 'early in the bucket']);
    const second = await page(first.nextCursor!);
    expect(second.items.map((item) => item.body)).toEqual(['late in the bucket']);
    expect(second.nextCursor).toBeNull();
    const whole = await asBrowser(app, session, { url: `/api/v1/logs?${new URLSearchParams({ from: iso(bucketStart), to: iso(bucketStart + 2 * idBucketMs) }).toString()}` });
    expect((whole.json() as { items: Array<{ body: string }> }).items.map((item) => item.body)).toEqual(['next bucket', 'late in the bucket', 'early in the bucket']);
    // A range that starts or ends inside a bucket keeps to the records' own times.
    const inside = await app.logStore.search({ range: { fromMs: bucketStart + 50, toMs: bucketStart + idBucketMs + 1 }, filters: {}, limit: 10 });
    expect(inside.map((row) => row.body)).toEqual(['late in the bucket']);
  });

  it('forgets a pruned trace and still finds the others', async () => {
    const old = newTraceId();
    const recent = newTraceId();
    await send([{ time: iso(start - 55 * minuteMs), severityNumber: 9, body: 'old traced', traceId: old }]);
    await send([{ time: iso(start - minuteMs), severityNumber: 9, body: 'recent traced', traceId: recent }]);
    expect(await app.logStore.prune(start - 10 * minuteMs, 1_000, () => false)).toBeGreaterThan(maxRuns);
    expect(await traceBodies(old)).toEqual([]);
    expect(await traceBodies(recent)).toEqual(['recent traced']);
  });
});

describe('the SQLite trace directory', () => {
  const clock = new ManualClock(start);
  let database: TestDatabase;
  let app: App;
  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    app = await buildTestApp(database, {}, { clock });
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    await database.dispose();
  });

  const count = async (table: string) => Number((await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(app.database.db)).rows[0]!.n);
  const blocks = async () => (await sql<{ block: number; records: number }>`select block, records from log_trace_blocks order by block`.execute(app.database.db)).rows.map((row) => [Number(row.block), Number(row.records)]);
  const traceBodies = async (traceId: string) => (await app.logStore.traceLogs(traceId, 100_000)).map((row) => row.body);
  const write = (batch: NewLogRecord[]) => app.telemetry.write([], 0, batch);

  it('keeps a run per transaction, folds the runs into the newest block while it has room, then starts another', async () => {
    const followed = newTraceId();
    const oldAt = start - 50 * minuteMs;
    // maxRuns small transactions: the last one folds them into block 0.
    for (let n = 0; n < maxRuns; n++) await write(records(1, oldAt + n, () => `small ${n}`, () => (n % 64 === 0 ? followed : newTraceId())));
    expect(await count('log_trace_runs')).toBe(0);
    expect(await blocks()).toEqual([[0, maxRuns]]);
    // Transactions of 1,000 records: block 0 takes folds until it holds a block of records, then block 1 starts.
    const batches = Math.ceil(blockRecords / 1_000) * 2 + 1;
    for (let n = 0; n < batches; n++) await write(records(1_000, oldAt + minuteMs + n * 1_000, (index) => `bulk ${n}.${index}`, (index) => (index === 0 && n % 40 === 0 ? followed : newTraceId())));
    const [first, second] = await blocks();
    expect(first![1]).toBeGreaterThanOrEqual(blockRecords);
    expect(second![0]).toBe(1);
    // Every part row holds whole entries; every record is in a run or a block once.
    const parts = await sql<{ entries: Buffer }>`select entries from log_trace_parts`.execute(app.database.db);
    const folded = parts.rows.reduce((sum, row) => sum + row.entries.length, 0);
    expect(folded % partEntryBytes).toBe(0);
    const inRuns = Number((await sql<{ n: number }>`select coalesce(sum(records), 0) as n from log_trace_runs`.execute(app.database.db)).rows[0]!.n);
    expect(folded / partEntryBytes + inRuns).toBe(maxRuns + batches * 1_000);
    const expected = [...[0, 64, 128, 192].map((n) => `small ${n}`), ...Array.from({ length: batches }, (_, n) => n).filter((n) => n % 40 === 0).map((n) => `bulk ${n}.0`)];
    expect(await traceBodies(followed)).toEqual(expected);
  });

  it('never returns another trace whose key is the same: the record itself is compared', async () => {
    const victim = newTraceId();
    await write(records(1, start - 2 * minuteMs, () => 'belongs to the victim', () => victim));
    const victimId = Number((await sql<{ id: number }>`select id from logs where trace_id = ${victim}`.execute(app.database.db)).rows[0]!.id);
    // A run entry claiming the victim's record for another trace, as a 40-bit key collision would.
    const impostor = newTraceId();
    const impostorKey = traceKey(impostor);
    const entry = Buffer.alloc(runEntryBytes);
    entry[0] = impostorKey % traceParts;
    entry.writeUInt32BE(Math.floor(impostorKey / traceParts), 1);
    entry.writeUInt32BE(Math.floor(victimId / 2 ** 32), 5);
    entry.writeUInt32BE(victimId >>> 0, 9);
    await sql`insert into log_trace_runs (first_id, last_id, records, entries) values (${victimId}, ${victimId}, 1, ${entry})`.execute(app.database.db);
    expect(await traceBodies(impostor)).toEqual([]);
    expect(await traceBodies(victim)).toEqual(['belongs to the victim']);
  });

  it('drives a trace search from the trace\'s ids whatever else it filters on', async () => {
    const rows = await sql<{ detail: string }>`
      explain query plan select l.* from ${traceRecordsSource([1, 2])}
      where l.id >= 0 and l.id < 1e15 and l.service = 'bulk-svc' and l.severity_number >= 13 and l.severity_number >= 13 order by l.id desc`.execute(app.database.db);
    // The ids outermost, each one probe by id; not a walk of the service's index over the range.
    expect(rows.rows.map((row) => row.detail).join(' | ')).toMatch(/^SCAN j\b[^|]*\| SEARCH l USING (COVERING )?INDEX \w+ \((service=\? AND )?id=\?\)/);
  });

  it('prunes whole blocks with their part rows, and runs, once all their records are older than the cutoff', async () => {
    const recent = newTraceId();
    await write(records(1, start - minuteMs, () => 'recent traced', () => recent));
    const oldTrace = (await sql<{ trace_id: string }>`select trace_id from logs where body = 'small 0'`.execute(app.database.db)).rows[0]!.trace_id;
    expect(await traceBodies(oldTrace)).not.toEqual([]);
    const cutoffMs = start - 10 * minuteMs;
    const recentRuns = Number((await sql<{ n: number }>`select count(*) as n from log_trace_runs where last_id >= ${idsBefore(cutoffMs)}`.execute(app.database.db)).rows[0]!.n);
    expect(recentRuns).toBeGreaterThan(0);
    expect(await count('log_trace_runs')).toBeGreaterThan(recentRuns);
    expect((await blocks()).length).toBe(2);
    // Both blocks hold only records of about 50 minutes ago; the runs hold the recent ones.
    await app.logStore.prune(cutoffMs, 10_000, () => false);
    expect(await blocks()).toEqual([]);
    expect(await count('log_trace_parts')).toBe(0);
    expect(await count('log_trace_runs')).toBe(recentRuns);
    expect(await traceBodies(oldTrace)).toEqual([]);
    expect(await traceBodies(recent)).toEqual(['recent traced']);
    // The next fold starts block 0 again, with nothing of the old one.
    for (let n = recentRuns; n < maxRuns; n++) await write(records(1, start - 30_000 + n, () => `after prune ${n}`));
    expect(await blocks()).toEqual([[0, maxRuns]]);
    expect(await traceBodies(oldTrace)).toEqual([]);
    expect(await traceBodies(recent)).toEqual(['recent traced']);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { ManualClock, type App } from '@playstack/server-kit';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { blockRecords, maxRuns, partEntryBytes, runEntryBytes } from '../src/logs/log-trace-directory.js';
import { traceKey, traceParts } from '../src/logs/log-trace-key.js';
import { bucketStartMs, idBucketMs } from '../src/logs/log-ids.js';
import { asBrowser, setUpFirstAdmin, type BrowserSession } from './support/browser-session.js';
import type { NewLogRecord } from '../src/logs/index.js';
import { envelope, newTraceId } from './support/envelopes.js';
import { buildTestApp } from './support/test-app.js';

const key = 'trace-directory-test-key-0123456789';
const minuteMs = 60_000;
const hourMs = 60 * minuteMs;
const start = Date.parse('2026-12-07T12:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

describe('trace keys', () => {
  it('spread ids that differ in one character, at either end, over parts and prints', () => {
    const ids = Array.from({ length: 4096 }, (_, n) => `0af7651916cd43dd8448eb211c80${n.toString(16).padStart(4, '0')}`);
    const counted = (of: (id: string) => number) => new Set(ids.map(of)).size;
    expect(counted((id) => traceKey(id) % traceParts)).toBe(traceParts);
    expect(counted((id) => Math.floor(traceKey(id) / traceParts))).toBe(ids.length);
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
  const sqlite = () => app.database.dialect === 'sqlite';
  const count = async (table: string) => Number((await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(app.database.db)).rows[0]!.n);
  const traceBodies = async (traceId: string) => (await app.logStore.traceLogs(traceId, 1_000)).map((row) => row.body);

  it('finds every record of a trace, in time order, whether its entries are in runs or folded into a block', async () => {
    const followed = newTraceId();
    // More transactions than the runs hold, so the first ones are folded before the last arrive.
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
    if (sqlite()) {
      expect(await count('log_trace_blocks')).toBe(1);
      expect(await count('log_trace_runs')).toBe(requests - maxRuns);
      const folded = await sql<{ records: number }>`select records from log_trace_blocks`.execute(app.database.db);
      expect(Number(folded.rows[0]!.records)).toBe(maxRuns);
    }
    // A range finds the trace's records in it, and only those; the search joins its other filters.
    const page = await app.logStore.search({ range: { fromMs: at(150), toMs: at(250) }, filters: {}, traceId: followed, limit: 10 });
    expect(page.map((row) => row.body)).toEqual(['step 200 of followed']);
    const worded = await app.logStore.search({ range: { fromMs: at(0), toMs: at(requests) }, filters: {}, traceId: followed, terms: ['step', '300'], limit: 10 });
    expect(worded.map((row) => row.body)).toEqual(['step 300 of followed']);
    const elsewhere = await app.logStore.search({ range: { fromMs: at(0), toMs: at(requests) }, filters: { service: 'no-such-svc' }, traceId: followed, limit: 10 });
    expect(elsewhere).toEqual([]);
  });

  it('keeps folding into the newest block while it holds less than a block of records', async () => {
    if (!sqlite()) return;
    const before = await sql<{ block: number; records: number }>`select block, records from log_trace_blocks order by block`.execute(app.database.db);
    const runs = await count('log_trace_runs');
    const traced = newTraceId();
    // Enough transactions to fold again: the newest block has room, so it grows.
    for (let request = runs; request < maxRuns; request++) await send([{ time: iso(start - 5 * minuteMs + request), severityNumber: 9, body: `fold ${request}`, traceId: request === maxRuns - 1 ? traced : newTraceId() }]);
    const after = await sql<{ block: number; records: number }>`select block, records from log_trace_blocks order by block`.execute(app.database.db);
    expect(after.rows.map((row) => Number(row.block))).toEqual(before.rows.map((row) => Number(row.block)));
    expect(Number(after.rows[0]!.records)).toBe(Number(before.rows[0]!.records) + maxRuns);
    expect(await count('log_trace_runs')).toBe(0);
    expect(await traceBodies(traced)).toEqual([`fold ${maxRuns - 1}`]);
    // Every part row's entries are whole entries, and no more than the block's records.
    const parts = await sql<{ entries: Buffer }>`select entries from log_trace_parts`.execute(app.database.db);
    const entries = parts.rows.reduce((sum, row) => sum + row.entries.length, 0);
    expect(entries % partEntryBytes).toBe(0);
    expect(entries / partEntryBytes).toBe(Number(after.rows[0]!.records));
    expect(Number(after.rows[0]!.records)).toBeLessThan(blockRecords);
  });

  it('starts another block once the newest holds a block of records', async () => {
    if (!sqlite()) return;
    const blocksBefore = await count('log_trace_blocks');
    const followed = newTraceId();
    const batch = (n: number): NewLogRecord[] =>
      Array.from({ length: 1_000 }, (_, index) => ({
        time_ms: start - 20 * minuteMs + n, time_ns: 0, observed_ms: start, severity_number: 9, severity_text: null, body: `bulk ${n}.${index}`, body_json: 0,
        event_name: null, service: 'bulk-svc', environment: 'production', service_version: null, instance: null, scope_name: null, scope_version: null,
        trace_id: index === 0 && n % 50 === 0 ? followed : newTraceId(), span_id: null, flags: 0, tenant_id: null, attributes: null, resource_attributes: null,
      }));
    // Two blocks' worth: the newest block fills up, then a new one starts.
    const batches = Math.ceil((2 * blockRecords) / 1_000) + 1;
    for (let n = 0; n < batches; n++) await app.telemetry.write([], 0, batch(n));
    const blocks = await sql<{ block: number; records: number }>`select block, records from log_trace_blocks order by block`.execute(app.database.db);
    expect(blocks.rows.length).toBe(blocksBefore + 1);
    expect(Number(blocks.rows[blocksBefore - 1]!.records)).toBeGreaterThanOrEqual(blockRecords);
    const expected = Array.from({ length: batches }, (_, n) => n).filter((n) => n % 50 === 0).map((n) => `bulk ${n}.0`);
    expect(await traceBodies(followed)).toEqual(expected);
  });

  it('never returns another trace whose key is the same: the record itself is compared', async () => {
    if (!sqlite()) return;
    const victim = newTraceId();
    await send([{ time: iso(start - 2 * minuteMs), severityNumber: 9, body: 'belongs to the victim', traceId: victim }]);
    const stored = await sql<{ id: number }>`select id from logs where trace_id = ${victim}`.execute(app.database.db);
    const victimId = Number(stored.rows[0]!.id);
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

  it('prunes the directory with the records: rows whose records are all gone go, lookups of the rest still answer', async () => {
    const recent = newTraceId();
    await send([{ time: iso(start - minuteMs), severityNumber: 9, body: 'recent traced', traceId: recent }]);
    const partsBefore = sqlite() ? await count('log_trace_parts') : 0;
    const pruned = await app.logStore.prune(start - 10 * minuteMs, 1_000, () => false);
    expect(pruned).toBeGreaterThan(maxRuns);
    expect(await traceBodies(recent)).toEqual(['recent traced']);
    if (sqlite()) {
      const oldRows = await sql<{ n: number }>`
        select (select count(*) from log_trace_runs where last_id < (select min(id) from logs))
             + (select count(*) from log_trace_parts where last_id < (select min(id) from logs))
             + (select count(*) from log_trace_blocks where last_id < (select min(id) from logs)) as n`.execute(app.database.db);
      expect(Number(oldRows.rows[0]!.n)).toBe(0);
      // Parts of the block that held only pruned records' entries went.
      expect(await count('log_trace_parts')).toBeLessThan(partsBefore);
    }
  });
});

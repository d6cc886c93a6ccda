import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteDatabase, systemClock, type App } from '@playstack/server-kit';
import { createTestDatabase, type TestDatabase } from '@playstack/server-kit/testing';
import { loadObservabilityConfig } from '../src/config.js';
import type { ObservabilityApp } from '../src/database.js';
import type { NewOccurrence } from '../src/storage/storage-tables.js';
import { SqliteWriterThread, startWriterWorker } from '../src/telemetry/sqlite-writer-thread.js';
import type { SqliteWriterSettings } from '../src/telemetry/sqlite-writer-protocol.js';
import { noLogRows } from '../src/logs/index.js';
import { asBrowser, setUpFirstAdmin } from './support/browser-session.js';
import { envelope, minimalOccurrence, newTraceId } from './support/envelopes.js';
import { buildTestApp } from './support/test-app.js';

const apiKey = 'writer-thread-test-key-0123456789';
const ingest = (app: App, occurrences: unknown[]) =>
  app.inject({ method: 'POST', url: '/api/v1/ingest', headers: { authorization: `Bearer ${apiKey}` }, payload: envelope(occurrences) });

let database: TestDatabase;
let app: App;

beforeEach(async () => {
  database = await createTestDatabase('sqlite');
});

afterEach(async () => {
  await app?.close();
  await database.dispose();
});

describe('SQLite ingest on the writer thread (SQLITE_WRITER_THREAD, on by default)', () => {
  it('answers each envelope after its commit, and the dashboard reads every acknowledged occurrence at once', async () => {
    app = await buildTestApp(database, { SERVICE_API_KEY: apiKey });
    const now = Date.now();
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, envelopeIndex) =>
        ingest(app, Array.from({ length: 50 }, (_, index) => minimalOccurrence(new Date(now - envelopeIndex * 1000 - index).toISOString(), { operation: `op-${envelopeIndex}` }))),
      ),
    );
    expect(responses.map((response) => response.statusCode)).toEqual(Array(12).fill(202));
    const admin = await setUpFirstAdmin(app);
    const listed = await asBrowser(app, admin, { method: 'GET', url: '/api/v1/occurrences?limit=1' });
    expect(listed.statusCode).toBe(200);
    expect(listed.json().total).toBe(600);
  });

  it('makes a service-connection transaction that reads before it writes wait for the thread, not fail', async () => {
    app = await buildTestApp(database, { SERVICE_API_KEY: apiKey });
    const { db } = (app as ObservabilityApp).database;
    // The thread is running (it starts with the first write).
    expect((await ingest(app, [minimalOccurrence(new Date().toISOString())])).statusCode).toBe(202);
    let ingested: ReturnType<typeof ingest> | undefined;
    await db.transaction().execute(async (trx) => {
      await trx.selectFrom('settings').selectAll().execute();
      // The thread's commit comes while this transaction is open between its read and its write:
      // begun deferred, this transaction's write would then fail at once (SQLITE_BUSY_SNAPSHOT).
      ingested = ingest(app, [minimalOccurrence(new Date().toISOString())]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await trx.insertInto('settings').values({ name: 'writer-thread-test', value: '1', updated_at: Date.now() }).execute();
    });
    expect((await ingested!).statusCode).toBe(202);
    expect(await db.selectFrom('settings').select('value').where('name', '=', 'writer-thread-test').executeTakeFirst()).toEqual({ value: '1' });
  });

  it('writes on the service connection when SQLITE_WRITER_THREAD is false', async () => {
    expect(loadObservabilityConfig({ SQLITE_WRITER_THREAD: '0' }).SQLITE_WRITER_THREAD).toBe(false);
    expect(loadObservabilityConfig({}).SQLITE_WRITER_THREAD).toBe(true);
    app = await buildTestApp(database, { SERVICE_API_KEY: apiKey, SQLITE_WRITER_THREAD: 'false' });
    const response = await ingest(app, [minimalOccurrence(new Date().toISOString())]);
    expect(response.statusCode).toBe(202);
    const admin = await setUpFirstAdmin(app);
    expect((await asBrowser(app, admin, { method: 'GET', url: '/api/v1/occurrences' })).json().total).toBe(1);
  });
});

describe('SqliteWriterThread', () => {
  /** A migrated service database, its file, and an occurrence row to write. */
  async function migratedFile(): Promise<SqliteWriterSettings> {
    app = await buildTestApp(database, { SQLITE_WRITER_THREAD: 'false' });
    return { path: join(database.env.DATA_DIR!, 'observability.sqlite'), pragmas: { sqliteSynchronous: 'normal' }, maxRowsPerTransaction: 1_000 };
  }

  const row = (traceId: string): NewOccurrence => ({
    client_id: null, trace_id: traceId, span_id: '00f067aa0ba902b7', parent_span_id: null, service: 'game-api', environment: 'production',
    service_version: null, instance: null, operation: 'tick', kind: 'internal', started_at: Date.now(), duration_ms: 1, status: 'ok',
    tenant_id: null, http_method: null, http_route: null, http_status_code: null, db_system: null, db_statement: null,
    db_statement_hash: null, normalized_statement: null, db_operation: null, peer_service: null, peer_address: null, error_type: null,
    error_message: null, error_stack: null, attributes: null, resource_attributes: null, events: null, links: null,
  });

  const storedTraces = (settings: SqliteWriterSettings): string[] => {
    const file = new SqliteDatabase(settings.path, { readonly: true });
    try {
      return (file.prepare('select trace_id from occurrences order by trace_id').all() as Array<{ trace_id: string }>).map((stored) => stored.trace_id);
    } finally {
      file.close();
    }
  };

  it('fails the writes a thread held when it dies, and starts a new thread for the next write', async () => {
    const settings = await migratedFile();
    let starts = 0;
    const thread = new SqliteWriterThread({
      settings,
      clock: systemClock,
      onCommit: () => undefined,
      // The first thread dies on the first write it is given (as one ending in a crash would);
      // the second is the real one.
      start: async (options) => {
        starts += 1;
        if (starts > 1) return startWriterWorker(options);
        const dying = "const { parentPort } = require('node:worker_threads'); parentPort.postMessage({ type: 'ready' }); parentPort.on('message', () => process.exit(3));";
        return new Worker(dying, { eval: true });
      },
    });
    const lost = thread.write([row(newTraceId())], 0, noLogRows);
    await expect(lost).rejects.toThrow(/writer thread stopped before committing: the SQLite writer thread exited \(code 3\)/);
    const next = newTraceId();
    await thread.write([row(next)], 0, noLogRows);
    expect(starts).toBe(2);
    await thread.close();
    expect(storedTraces(settings)).toEqual([next]);
  });

  it('rejects a write the database refuses alone, and commits the writes grouped with it', async () => {
    const settings = await migratedFile();
    const thread = new SqliteWriterThread({ settings, clock: systemClock, onCommit: () => undefined });
    const good = [newTraceId(), newTraceId(), newTraceId()];
    // service is NOT NULL: the database refuses this row, and with it only its own write.
    const refused = { ...row(newTraceId()), service: null } as unknown as NewOccurrence;
    const results = await Promise.allSettled([thread.write([row(good[0]!)], 0, noLogRows), thread.write([refused], 0, noLogRows), thread.write([row(good[1]!)], 0, noLogRows), thread.write([row(good[2]!)], 0, noLogRows)]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/NOT NULL/);
    await thread.close();
    expect(storedTraces(settings)).toEqual([...good].sort());
  });

  it('closes only after what it held is committed', async () => {
    const settings = await migratedFile();
    const thread = new SqliteWriterThread({ settings, clock: systemClock, onCommit: () => undefined });
    const traces = Array.from({ length: 20 }, () => newTraceId());
    const writes = traces.map((traceId) => thread.write([row(traceId)], 0, noLogRows));
    await thread.close();
    await Promise.all(writes);
    expect(storedTraces(settings)).toEqual([...traces].sort());
    await expect(thread.write([row(newTraceId())], 0, noLogRows)).rejects.toThrow(/closed/);
  });
});

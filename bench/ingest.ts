// Ingestion throughput: protocol v1 envelopes of 500 occurrences over HTTP from a concurrent
// client, into the real service on SQLite. Accepted occurrences are durable (the 202 follows the
// commit); the run checks the stored count against the acknowledged one. Two ceilings measured in
// the same run: a bare Fastify route taking the same bodies, and a raw batched insert loop of the
// same rows into the same table (better-sqlite3, prepared statement, no rollups).
//
//   npx tsx --conditions=source bench/ingest.ts
//
// BENCH_SECONDS (default 10) per phase, BENCH_CONCURRENCY (default 16) requests in flight.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import SqliteDatabase from 'better-sqlite3';
import { migrateToLatest, openDatabase } from '@playstack/server-kit';
import { observabilityMigrations } from '../packages/observability-service/src/migrations/index.js';
import { mapOccurrence } from '../packages/observability-service/src/ingest/occurrence-mapper.js';
import type { ProtocolOccurrence } from '../packages/observability-service/src/ingest/protocol-types.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
const occurrencesPerEnvelope = 500;
const apiKey = 'bench-ingest-key-0123456789';
const target = fileURLToPath(new URL('./support/ingest-target.ts', import.meta.url));
const resource = { service: 'bench-api', environment: 'production', version: '1.0.0', instance: 'bench-1' };
// Trace ids are `<8 hex envelope number><24 hex>`; each request gets a fresh envelope number.
const tracePlaceholder = 'ffffffff';

/** One envelope body template: realistic traces (server span, internal span, database call, outgoing call). */
function envelopeTemplate(startedAt: number): { text: string; occurrences: ProtocolOccurrence[] } {
  const occurrences: ProtocolOccurrence[] = [];
  const routes = ['/players/:id', '/runs', '/leaderboards/:boardId', '/sessions'];
  for (let trace = 0; occurrences.length < occurrencesPerEnvelope; trace++) {
    const traceId = `${tracePlaceholder}${trace.toString(16).padStart(24, '0')}`;
    const root = `a${trace.toString(16).padStart(15, '0')}`;
    const route = routes[trace % routes.length]!;
    const at = new Date(startedAt + trace).toISOString();
    const status = trace % 37 === 0 ? 'error' : 'ok';
    occurrences.push(
      { traceId, spanId: root, operation: `GET ${route}`, kind: 'server', startedAt: at, durationMs: 5 + (trace % 50), status, tenantId: `tenant-${trace % 20}`, http: { method: 'GET', route, statusCode: status === 'ok' ? 200 : 500 } },
      { traceId, spanId: `b${trace.toString(16).padStart(15, '0')}`, parentSpanId: root, operation: 'load player', kind: 'internal', startedAt: at, durationMs: 3 + (trace % 20), status: 'ok' },
      { traceId, spanId: `c${trace.toString(16).padStart(15, '0')}`, parentSpanId: root, operation: 'SELECT players', kind: 'client', startedAt: at, durationMs: 1 + (trace % 9), status: 'ok', db: { system: 'postgresql', statement: `SELECT * FROM players WHERE id = ${trace}`, operation: 'SELECT' } },
      { traceId, spanId: `d${trace.toString(16).padStart(15, '0')}`, parentSpanId: root, operation: 'POST /rank', kind: 'client', startedAt: at, durationMs: 2 + (trace % 7), status: 'ok', peer: { service: 'rank-engine' } },
    );
  }
  occurrences.length = occurrencesPerEnvelope;
  return { text: JSON.stringify({ protocol: 1, sentAt: new Date(startedAt).toISOString(), resource, occurrences }), occurrences };
}

async function startTarget(mode: 'service' | 'bare', env: Record<string, string>): Promise<{ child: ChildProcess; url: string; exited: Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=source', target, mode], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      const match = /listening (\d+)/.exec(chunk.toString());
      if (match) resolve(Number(match[1]));
    });
    child.on('exit', (code) => reject(new Error(`${mode} target exited with ${code}`)));
  });
  return { child, url: `http://127.0.0.1:${port}/api/v1/ingest`, exited };
}

/** Posts envelopes from `concurrency` loops for `seconds`; returns acknowledged occurrences per second. */
async function load(url: string, template: string): Promise<{ perSecond: number; acknowledged: number; p50Ms: number; p99Ms: number }> {
  let envelopeNumber = 0;
  let acknowledged = 0;
  const latencies: number[] = [];
  const send = async () => {
    envelopeNumber += 1;
    const body = template.replaceAll(tracePlaceholder, envelopeNumber.toString(16).padStart(8, '0'));
    const started = performance.now();
    const response = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body });
    const result = (await response.json()) as { accepted?: { occurrences: number } };
    if (response.status !== 202) throw new Error(`unexpected ${response.status}: ${JSON.stringify(result)}`);
    latencies.push(performance.now() - started);
    return result.accepted!.occurrences;
  };
  // Warm-up: JIT, SQLite page cache, connection pool.
  for (let i = 0; i < 10; i++) await send();
  latencies.length = 0;
  const startedAt = performance.now();
  const deadline = startedAt + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const accepted = await send();
        acknowledged += accepted;
      }
    }),
  );
  const elapsed = (performance.now() - startedAt) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    perSecond: acknowledged / elapsed,
    acknowledged,
    p50Ms: latencies[Math.floor(latencies.length * 0.5)]!,
    p99Ms: latencies[Math.floor(latencies.length * 0.99)]!,
  };
}

/** The storage ceiling: the same rows inserted 500 per statement, one transaction per envelope. */
async function rawInsertCeiling(occurrences: ProtocolOccurrence[]): Promise<number> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-ingest-raw-'));
  try {
    const database = await openDatabase({ schema: 'public', poolSize: 1, dataDir, fileName: 'raw.sqlite', sqliteSynchronous: 'normal' });
    await migrateToLatest(database.db, database.dialect, observabilityMigrations, 'obs');
    await database.close();
    const file = new SqliteDatabase(join(dataDir, 'raw.sqlite'));
    file.pragma('journal_mode = WAL');
    file.pragma('synchronous = NORMAL');
    const rows = occurrences.map((occurrence) => {
      const mapped = mapOccurrence(resource, occurrence, { oldestMs: 0, newestMs: Number.MAX_SAFE_INTEGER });
      if (!mapped.ok) throw new Error(mapped.message);
      const { normalized_statement: _normalized, ...row } = mapped.row;
      return { ...row, received_at: Date.now() };
    });
    const columns = Object.keys(rows[0]!);
    const tuple = `(${columns.map(() => '?').join(',')})`;
    const insert = file.prepare(`insert into occurrences (${columns.join(',')}) values ${rows.map(() => tuple).join(',')}`);
    let envelopeNumber = 0;
    const insertEnvelope = file.transaction(() => {
      envelopeNumber += 1;
      const prefix = envelopeNumber.toString(16).padStart(8, '0');
      const parameters: unknown[] = [];
      for (const row of rows) {
        for (const column of columns) {
          const value = row[column as keyof typeof row];
          parameters.push(column === 'trace_id' ? prefix + (value as string).slice(8) : value);
        }
      }
      insert.run(parameters);
    });
    for (let i = 0; i < 10; i++) insertEnvelope();
    const startedAt = performance.now();
    let inserted = 0;
    while (performance.now() - startedAt < seconds * 1000) {
      insertEnvelope();
      inserted += rows.length;
    }
    const perSecond = inserted / ((performance.now() - startedAt) / 1000);
    file.close();
    return perSecond;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const format = (value: number) => Math.round(value).toLocaleString('en-US');
const { text, occurrences } = envelopeTemplate(Date.now() - 60_000);
console.log(`envelope: ${occurrencesPerEnvelope} occurrences, ${format(text.length)} bytes; ${concurrency} requests in flight; ${seconds} s per phase`);

const bare = await startTarget('bare', {});
const bareResult = await load(bare.url, text);
bare.child.kill('SIGTERM');
await bare.exited;

const dataDir = mkdtempSync(join(tmpdir(), 'bench-ingest-'));
try {
  const env = { DATA_DIR: dataDir, SERVICE_API_KEY: apiKey, INGEST_RATE_LIMIT_PER_SECOND: '1000000' };
  const service = await startTarget('service', env);
  const serviceResult = await load(service.url, text);
  service.child.kill('SIGTERM');
  await service.exited;

  const store = await openDatabase({ schema: 'public', poolSize: 1, dataDir, fileName: 'observability.sqlite', sqliteSynchronous: 'normal' });
  const stored = Number((await store.db.selectFrom('occurrences').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  await store.close();
  const warmUp = 10 * occurrencesPerEnvelope;
  if (stored !== serviceResult.acknowledged + warmUp) throw new Error(`stored ${stored} occurrences but ${serviceResult.acknowledged + warmUp} were acknowledged`);

  const rawPerSecond = await rawInsertCeiling(occurrences);
  console.log(`bare Fastify route (same bodies, parse only):  ${format(bareResult.perSecond)} occurrences/s (envelope p50 ${bareResult.p50Ms.toFixed(1)} ms, p99 ${bareResult.p99Ms.toFixed(1)} ms)`);
  console.log(`raw batched insert loop (same rows, no HTTP):  ${format(rawPerSecond)} occurrences/s`);
  console.log(
    `service, SQLite, accepted and durable:         ${format(serviceResult.perSecond)} occurrences/s (envelope p50 ${serviceResult.p50Ms.toFixed(1)} ms, p99 ${serviceResult.p99Ms.toFixed(1)} ms; ${format(stored)} stored = acknowledged)`,
  );
  console.log(`ratio to bare route: ${(serviceResult.perSecond / bareResult.perSecond).toFixed(2)}; ratio to raw insert loop: ${(serviceResult.perSecond / rawPerSecond).toFixed(2)}`);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}

// Ingestion throughput: protocol v1 envelopes of 500 occurrences over HTTP from a concurrent
// client, into the real service on SQLite. Accepted occurrences are durable (the 202 follows the
// commit); the run checks the stored count against the acknowledged one. Two ceilings measured in
// the same run: a bare Fastify route taking the same bodies, and a raw batched insert loop of the
// same rows into the same table (better-sqlite3, prepared statement, no rollups). Each figure is
// also given per CPU-second the server used, which stays comparable when other processes compete
// for the cores (on a shared machine the wall-clock figures mostly measure the competition).
//
//   npx tsx --conditions=source bench/ingest.ts
//
// BENCH_SECONDS (default 10) per phase, BENCH_CONCURRENCY (default 16) requests in flight.
// The servers run in child processes, so the load generator does not share their event loop;
// BENCH_TARGET_NODE_ARGS passes Node flags to them, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import SqliteDatabase from 'better-sqlite3';
import Fastify from 'fastify';
import { buildApp, loadObservabilityConfig } from '@playstack/observability-service';
import { migrateToLatest, openDatabase } from '@playstack/server-kit';
import { observabilityMigrations } from '../packages/observability-service/src/migrations/index.js';
import { mapOccurrence } from '../packages/observability-service/src/ingest/occurrence-mapper.js';
import type { ProtocolOccurrence } from '../packages/observability-service/src/ingest/protocol-types.js';
import { listenInChild, serveOrRun, serviceNodeFlags, withChildServer, type ChildServer } from './support/http-load.js';
import { withTempDir } from './support/scratch.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
const occurrencesPerEnvelope = 500;
const apiKey = 'bench-ingest-key-0123456789';
const script = fileURLToPath(import.meta.url);
// Both servers run with the observability service's production Node flags, plus BENCH_TARGET_NODE_ARGS.
const targetNodeArgs = [...serviceNodeFlags('observability-service'), ...(process.env.BENCH_TARGET_NODE_ARGS ?? '').split(' ').filter(Boolean)];
const resource = { service: 'bench-api', environment: 'production', version: '1.0.0', instance: 'bench-1' };
// Every request gets a fresh envelope number, the first 8 hex digits of its trace and span ids,
// and the current time as its occurrences' start, as real traffic has: identical rows over and
// over would measure SQLite's worst case (equal index keys), not ingestion.
const idPlaceholder = 'ffffffff';
const timePlaceholder = '@@startedAt@@';

type ServeRequest = { role: 'service'; env: Record<string, string> } | { role: 'bare' };

async function serve(request: ServeRequest): Promise<void> {
  if (request.role === 'service') {
    await listenInChild(await buildApp(loadObservabilityConfig({ ...process.env, ...request.env, LOG_LEVEL: 'error' })));
    return;
  }
  // The ceiling: the same body parsed by Fastify's JSON parser, no validation or storage.
  const bare = Fastify({ bodyLimit: 5 * 1024 * 1024 });
  bare.post('/api/v1/ingest', async (req, reply) => {
    const body = req.body as { occurrences: unknown[] };
    return reply.code(202).send({ accepted: { occurrences: body.occurrences.length }, rejected: { occurrences: 0 }, truncated: { strings: 0 }, errors: [] });
  });
  await listenInChild(bare);
}

/** One envelope body template: realistic traces (server span, internal span, database call, outgoing call). */
function envelopeTemplate(): { text: string; occurrences: ProtocolOccurrence[] } {
  const occurrences: ProtocolOccurrence[] = [];
  const routes = ['/players/:id', '/runs', '/leaderboards/:boardId', '/sessions'];
  const spanId = () => `${idPlaceholder}${occurrences.length.toString(16).padStart(8, '0')}`;
  for (let trace = 0; occurrences.length < occurrencesPerEnvelope; trace++) {
    const traceId = `${idPlaceholder}${trace.toString(16).padStart(24, '0')}`;
    const route = routes[trace % routes.length]!;
    const status = trace % 37 === 0 ? 'error' : 'ok';
    const common = { traceId, startedAt: timePlaceholder };
    const root = spanId();
    occurrences.push({ ...common, spanId: root, operation: `GET ${route}`, kind: 'server', durationMs: 5 + (trace % 50), status, tenantId: `tenant-${trace % 20}`, http: { method: 'GET', route, statusCode: status === 'ok' ? 200 : 500 } });
    occurrences.push({ ...common, spanId: spanId(), parentSpanId: root, operation: 'load player', kind: 'internal', durationMs: 3 + (trace % 20), status: 'ok' });
    occurrences.push({ ...common, spanId: spanId(), parentSpanId: root, operation: 'SELECT players', kind: 'client', durationMs: 1 + (trace % 9), status: 'ok', db: { system: 'postgresql', statement: `SELECT * FROM players WHERE id = ${trace}`, operation: 'SELECT' } });
    occurrences.push({ ...common, spanId: spanId(), parentSpanId: root, operation: 'POST /rank', kind: 'client', durationMs: 2 + (trace % 7), status: 'ok', peer: { service: 'rank-engine' } });
  }
  occurrences.length = occurrencesPerEnvelope;
  return { text: JSON.stringify({ protocol: 1, sentAt: timePlaceholder, resource, occurrences }), occurrences };
}

/** The template filled in for one request. */
function envelopeBody(template: string, envelopeNumber: number): string {
  return template.replaceAll(idPlaceholder, envelopeNumber.toString(16).padStart(8, '0')).replaceAll(timePlaceholder, new Date().toISOString());
}

interface LoadResult {
  perSecond: number;
  /** Occurrences per CPU-second the server used: what one uncontended core sustains. */
  perServerCpuSecond: number;
  acknowledged: number;
  p50Ms: number;
  p99Ms: number;
}

/** Posts envelopes from `concurrency` loops for `seconds`; returns acknowledged occurrences per second. */
async function load(server: ChildServer<unknown>, template: string): Promise<LoadResult> {
  const url = `${server.baseUrl}/api/v1/ingest`;
  let envelopeNumber = 0;
  let acknowledged = 0;
  const latencies: number[] = [];
  const send = async () => {
    envelopeNumber += 1;
    const body = envelopeBody(template, envelopeNumber);
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
  const cpuBefore = await server.cpuMicros();
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
  const cpuUsed = ((await server.cpuMicros()) - cpuBefore) / 1e6;
  latencies.sort((a, b) => a - b);
  return {
    perSecond: acknowledged / elapsed,
    perServerCpuSecond: acknowledged / cpuUsed,
    acknowledged,
    p50Ms: latencies[Math.floor(latencies.length * 0.5)]!,
    p99Ms: latencies[Math.floor(latencies.length * 0.99)]!,
  };
}

/** The storage ceiling: the same rows inserted 500 per statement, one transaction per envelope. */
async function rawInsertCeiling(occurrences: ProtocolOccurrence[]): Promise<{ perSecond: number; perCpuSecond: number }> {
  return withTempDir('bench-ingest-raw-', async (dataDir) => {
    const database = await openDatabase({ schema: 'public', poolSize: 1, dataDir, fileName: 'raw.sqlite', sqliteSynchronous: 'normal' });
    await migrateToLatest(database.db, database.dialect, observabilityMigrations, 'obs');
    await database.close();
    const file = new SqliteDatabase(join(dataDir, 'raw.sqlite'));
    file.pragma('journal_mode = WAL');
    file.pragma('synchronous = NORMAL');
    const rows = occurrences.map((occurrence) => {
      const mapped = mapOccurrence(resource, { ...occurrence, startedAt: new Date().toISOString() }, { oldestMs: 0, newestMs: Number.MAX_SAFE_INTEGER });
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
      const now = Date.now();
      const parameters: unknown[] = [];
      for (const row of rows) {
        for (const column of columns) {
          const value = row[column as keyof typeof row];
          if (column === 'started_at' || column === 'received_at') parameters.push(now);
          else if (typeof value === 'string' && value.startsWith(idPlaceholder)) parameters.push(prefix + value.slice(8));
          else parameters.push(value);
        }
      }
      insert.run(parameters);
    });
    for (let i = 0; i < 10; i++) insertEnvelope();
    const startedAt = performance.now();
    const cpuBefore = process.cpuUsage();
    let inserted = 0;
    while (performance.now() - startedAt < seconds * 1000) {
      insertEnvelope();
      inserted += rows.length;
    }
    const perSecond = inserted / ((performance.now() - startedAt) / 1000);
    const cpu = process.cpuUsage(cpuBefore);
    file.close();
    return { perSecond, perCpuSecond: inserted / ((cpu.user + cpu.system) / 1e6) };
  });
}

function format(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

async function main(): Promise<void> {
  const { text, occurrences } = envelopeTemplate();
  console.log(`envelope: ${occurrencesPerEnvelope} occurrences, ${format(text.length)} bytes; ${concurrency} requests in flight; ${seconds} s per phase`);

  const bareResult = await withChildServer(script, { role: 'bare' } satisfies ServeRequest, (server) => load(server, text), targetNodeArgs);

  await withTempDir('bench-ingest-', async (dataDir) => {
    const env = { DATA_DIR: dataDir, SERVICE_API_KEY: apiKey, INGEST_RATE_LIMIT_PER_SECOND: '1000000' };
    const serviceResult = await withChildServer(script, { role: 'service', env } satisfies ServeRequest, (server) => load(server, text), targetNodeArgs);

    const store = await openDatabase({ schema: 'public', poolSize: 1, dataDir, fileName: 'observability.sqlite', sqliteSynchronous: 'normal' });
    const stored = Number((await store.db.selectFrom('occurrences').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    await store.close();
    const warmUp = 10 * occurrencesPerEnvelope;
    if (stored !== serviceResult.acknowledged + warmUp) throw new Error(`stored ${stored} occurrences but ${serviceResult.acknowledged + warmUp} were acknowledged`);

    const raw = await rawInsertCeiling(occurrences);
    const loadAverage = loadavg()[0]!.toFixed(1);
    console.log(`load average at the end: ${loadAverage} (per-CPU-second figures are what one uncontended core sustains)`);
    console.log(
      `bare Fastify route (same bodies, parse only):  ${format(bareResult.perSecond)} occurrences/s; ${format(bareResult.perServerCpuSecond)} per server CPU-second (envelope p50 ${bareResult.p50Ms.toFixed(1)} ms, p99 ${bareResult.p99Ms.toFixed(1)} ms)`,
    );
    console.log(`raw batched insert loop (same rows, no HTTP):  ${format(raw.perSecond)} occurrences/s; ${format(raw.perCpuSecond)} per CPU-second`);
    console.log(
      `service, SQLite, accepted and durable:         ${format(serviceResult.perSecond)} occurrences/s; ${format(serviceResult.perServerCpuSecond)} per server CPU-second (envelope p50 ${serviceResult.p50Ms.toFixed(1)} ms, p99 ${serviceResult.p99Ms.toFixed(1)} ms; ${format(stored)} stored = acknowledged)`,
    );
    console.log(
      `service / bare route: ${(serviceResult.perSecond / bareResult.perSecond).toFixed(2)} (per CPU-second ${(serviceResult.perServerCpuSecond / bareResult.perServerCpuSecond).toFixed(2)}); service / raw insert loop: ${(serviceResult.perSecond / raw.perSecond).toFixed(2)} (per CPU-second ${(serviceResult.perServerCpuSecond / raw.perCpuSecond).toFixed(2)})`,
    );
  });
}

await serveOrRun(serve, main);

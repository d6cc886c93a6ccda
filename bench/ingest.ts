// Ingestion throughput, measured from outside as a client would: requests of 500 spans of
// realistic traces (support/realistic-spans.ts: 20 services x 200 operations, 50 tenants, about
// 30% client spans, fresh random trace and span ids in every request, spans started over the last
// 5 s) over HTTP from 16 concurrent senders, into the real service on SQLite, as protocol v1 JSON
// envelopes, OTLP/HTTP protobuf and OTLP/gRPC. Accepted occurrences are durable (the 202 or 200
// follows the commit); the run checks the stored count against the acknowledged one.
//
// Every round measures each transport beside its ceilings, alternating (BENCH_ROUNDS rounds,
// default 3), and prints each round's ratios; the summary gives the medians of the figures and of
// the per-round ratios. Ceilings: a bare Fastify route parsing the same bodies (what HTTP and JSON
// parsing alone allow), and a raw batched insert loop of the same rows with fresh random ids into
// the same table with its indexes (better-sqlite3, prepared statement, no rollups: what storing
// the rows alone allows on one core), opened with the service's SQLite settings (page cache,
// checkpoint interval, memory mapping: SQLITE_* in the environment change both). Each figure is also given per CPU-second the server used,
// which stays comparable when other processes compete for the cores (on a shared machine the
// wall-clock figures mostly measure the competition). BENCH_SQLITE_SYNCHRONOUS=full runs the
// service and the raw loops with synchronous=FULL (default NORMAL).
//
// Logs: OTLP/HTTP protobuf requests of 1,000 log records (about 300 bytes each, random trace ids,
// each request one of 20 services', records timed over the 2 s before it is sent) alternate with
// the span transports, beside a raw insert loop of the same rows into `logs`, its FTS5 index and
// the trace directory (the ceiling: storing the rows alone, one core, every request in flight in
// one transaction, no counts), and the same loop into `logs` alone (what the text index costs); then a store of BENCH_LOG_RECORDS (default 10,000,000) records over 24 hours is seeded
// in SQL and searched for a rare, a typical and a common word (p50/p95 beside the bare FTS5
// match). BENCH_LOG_STORE_DIR keeps that store (e.g. /tmp/bench-logs-10m) for the next run.
//
//   npx tsx --conditions=source bench/ingest.ts
//
// BENCH_SECONDS (default 10) per phase, BENCH_CONCURRENCY (default 16) requests in flight.
// BENCH_PARTS (default "spans,logs,search,stores") picks parts: "logs" alone runs the log ingest
// phase and its ceiling, "search" alone the search over a seeded store, "stores" alone the same
// requests written straight to each telemetry store (SQLite, PostgreSQL with BENCH_DATABASE_URL
// or TEST_DATABASE_URL, ClickHouse on a private clickhouse-server) beside ClickHouse's ceiling,
// then requests of 1,000 log records the same way, and ClickHouse's bytes per stored span and
// per log record (support/store-ingest.ts).
// The servers run in child processes, so the load generator does not share their event loop;
// BENCH_TARGET_NODE_ARGS passes Node flags to them, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
import { rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, credentials, Metadata } from '@grpc/grpc-js';
import Fastify from 'fastify';
import { buildApp, loadObservabilityConfig } from '@playstack/observability-service';
import { applySqlitePragmas, migrateToLatest, openDatabase, sqlitePragmaOptions, SqliteDatabase } from '@playstack/server-kit';
import { observabilityMigrations } from '../packages/observability-service/src/migrations/index.js';
import { mapOccurrence } from '../packages/observability-service/src/ingest/occurrence-mapper.js';
import { occurrenceColumns } from '../packages/observability-service/src/telemetry/occurrence-writer.js';
import type { NewOccurrence } from '../packages/observability-service/src/storage/storage-tables.js';
import { encodeOtlp } from '../packages/observability-service/src/otlp/otlp-encoding.js';
import { otlpType } from '../packages/observability-service/src/otlp/otlp-protos.js';
import { freePort } from '@playstack/server-kit/testing';
import { listenInChild, serveOrRun, serviceNodeFlags, withChildServer, type ChildServer } from './support/http-load.js';
import { logsBody, logsPerRequest, logsTemplate, rawLogInsertCeiling, searchBench, type LogsTemplate } from './support/logs-bench.js';
import { idPlaceholder, operationsPerService, randomPrefix, realisticSpans, serviceCount, serviceName, spreadMs, tenantCount, withRandomIds } from './support/realistic-spans.js';
import { withTempDir } from './support/scratch.js';
import { storeIngestBench } from './support/store-ingest.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
/** SQLite's `synchronous` for the service and the raw loops (BENCH_SQLITE_SYNCHRONOUS: normal or full). */
const synchronous = process.env.BENCH_SQLITE_SYNCHRONOUS === 'full' ? 'full' : 'normal';
/**
 * The SQLite settings of the service under test (its configuration's defaults, or SQLITE_* from
 * the environment): the raw loops open their files with the same, so they stay ceilings.
 */
const pragmas = sqlitePragmaOptions(loadObservabilityConfig({ ...process.env, SQLITE_SYNCHRONOUS: synchronous }));
/** Log records the search part seeds (BENCH_LOG_RECORDS; 0 skips it), and searches per word. */
const searchRecords = Number(process.env.BENCH_LOG_RECORDS ?? 10_000_000);
const searchRounds = Number(process.env.BENCH_SEARCH_ROUNDS ?? 40);
const parts = new Set((process.env.BENCH_PARTS ?? 'spans,logs,search,stores').split(',').map((part) => part.trim()));
const occurrencesPerEnvelope = 500;
const apiKey = 'bench-ingest-key-0123456789';
const script = fileURLToPath(import.meta.url);
// Both servers run with the observability service's production Node flags, plus BENCH_TARGET_NODE_ARGS.
const targetNodeArgs = [...serviceNodeFlags('observability-service'), ...(process.env.BENCH_TARGET_NODE_ARGS ?? '').split(' ').filter(Boolean)];
const resource = { service: 'bench-api', environment: 'production', version: '1.0.0', instance: 'bench-1' };
// Placeholders each request rewrites: times (`@@t<ms before sending>@@`) and the v1 envelope's service.
const timePlaceholder = '@@t';
const servicePlaceholder = '@@service@@';

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

/** The spans every span request carries: realistic traces (see support/realistic-spans.ts). */
const templateSpans = realisticSpans(occurrencesPerEnvelope);

/**
 * The protocol v1 envelope template. An envelope has one resource, so the service is rotated per
 * request over the 20 (its spans all belong to it); times are `@@t<ms before sending>@@`.
 */
function envelopeTemplate(): string {
  const occurrences = templateSpans.map((span) => ({ ...span.occurrence, startedAt: `${timePlaceholder}${span.startsBeforeMs}@@` }));
  return JSON.stringify({ protocol: 1, sentAt: `${timePlaceholder}0@@`, resource: { ...resource, service: servicePlaceholder }, occurrences });
}

const otlpKinds: Record<string, number> = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 };
const idMarker = Buffer.from(idPlaceholder, 'hex');

/** An OTLP request body with the places each request rewrites: ids (random) and times (now). */
interface OtlpTemplate {
  body: Buffer;
  /** Where each id's random prefix goes, and which id it is (a trace's or a span's, numbered). */
  ids: Array<{ offset: number; id: number }>;
  idCount: number;
  /** Where each span's start and end times are (fixed64, little-endian), and how long before sending each is. */
  times: Array<{ offset: number; beforeNanos: bigint }>;
}

/**
 * The same spans as one OTLP ExportTraceServiceRequest in binary protobuf (the body of both
 * OTLP/HTTP and OTLP/gRPC), one resource per service as a collector batches them, with the offsets
 * of the id placeholders and of the span times, so each request gets fresh ids and current times.
 */
function otlpTemplate(): OtlpTemplate {
  const baseNanos = BigInt(Date.now()) * 1_000_000n;
  const attribute = (key: string, value: string | number) => ({ key, value: typeof value === 'number' ? { intValue: value } : { stringValue: value } });
  const byService = new Map<string, Array<{ span: object; before: [bigint, bigint] }>>();
  for (const { service, occurrence, startsBeforeMs } of templateSpans) {
    const attributes = [];
    if (occurrence.tenantId) attributes.push(attribute('tenant.id', occurrence.tenantId));
    if (occurrence.http) {
      attributes.push(attribute('http.request.method', occurrence.http.method));
      if (occurrence.http.route) attributes.push(attribute('http.route', occurrence.http.route));
      if (occurrence.http.statusCode) attributes.push(attribute('http.response.status_code', occurrence.http.statusCode));
    }
    if (occurrence.db) {
      attributes.push(attribute('db.system.name', occurrence.db.system));
      if (occurrence.db.statement) attributes.push(attribute('db.query.text', occurrence.db.statement));
      if (occurrence.db.operation) attributes.push(attribute('db.operation.name', occurrence.db.operation));
    }
    if (occurrence.peer?.service) attributes.push(attribute('peer.service', occurrence.peer.service));
    const startBefore = BigInt(startsBeforeMs) * 1_000_000n;
    const endBefore = startBefore - BigInt(Math.round(occurrence.durationMs * 1e6));
    const span = {
      traceId: Buffer.from(occurrence.traceId, 'hex'),
      spanId: Buffer.from(occurrence.spanId, 'hex'),
      parentSpanId: occurrence.parentSpanId ? Buffer.from(occurrence.parentSpanId, 'hex') : undefined,
      name: occurrence.operation,
      kind: otlpKinds[occurrence.kind],
      // Distinct placeholders (found below by value): the template's base time minus the span's own offsets.
      startTimeUnixNano: String(baseNanos - startBefore),
      endTimeUnixNano: String(baseNanos - endBefore),
      attributes,
      status: occurrence.status === 'error' ? { code: 2 } : {},
    };
    if (!byService.has(service)) byService.set(service, []);
    byService.get(service)!.push({ span, before: [startBefore, endBefore] });
  }
  const resourceSpans = [...byService].map(([service, spans]) => ({
    resource: {
      attributes: [
        attribute('service.name', service),
        attribute('deployment.environment.name', resource.environment),
        attribute('service.version', resource.version),
        attribute('service.instance.id', `${service}-1`),
      ],
    },
    scopeSpans: [{ scope: { name: 'bench' }, spans: spans.map((entry) => entry.span) }],
  }));
  const body = encodeOtlp(otlpType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest'), { resourceSpans }, 'protobuf') as Buffer;
  // Ids are encoded in field order (trace_id 1, span_id 2, parent_span_id 4) and spans in order,
  // so each placeholder found is the next id of the spans in the order encoded.
  const idNumbers = new Map<string, number>();
  const orderedIds: string[] = [];
  const times: OtlpTemplate['times'] = [];
  for (const spans of byService.values()) {
    for (const { span, before } of spans) {
      const { traceId, spanId, parentSpanId } = span as { traceId: Buffer; spanId: Buffer; parentSpanId?: Buffer };
      for (const id of [traceId, spanId, parentSpanId]) if (id) orderedIds.push(id.toString('hex'));
      for (const beforeNanos of before) times.push({ offset: -1, beforeNanos });
    }
  }
  const ids: OtlpTemplate['ids'] = [];
  let at = body.indexOf(idMarker);
  for (const hex of orderedIds) {
    if (at === -1) throw new Error('an id placeholder is missing from the OTLP body');
    if (!idNumbers.has(hex)) idNumbers.set(hex, idNumbers.size);
    ids.push({ offset: at, id: idNumbers.get(hex)! });
    at = body.indexOf(idMarker, at + idMarker.length);
  }
  if (at !== -1) throw new Error('the OTLP body holds more id placeholders than ids');
  // Fields are encoded in field-number order (start_time 7, end_time 8), so each time follows the previous one.
  let from = 0;
  for (const time of times) {
    const bytes = Buffer.alloc(8);
    bytes.writeBigUInt64LE(baseNanos - time.beforeNanos);
    const offset = body.indexOf(bytes, from);
    if (offset === -1) throw new Error('a span time is missing from the OTLP body');
    time.offset = offset;
    from = offset + 8;
  }
  return { body, ids, idCount: idNumbers.size, times };
}

/** The OTLP template with random ids, its spans timed relative to now. */
function otlpBody(template: OtlpTemplate): Buffer {
  const body = Buffer.from(template.body);
  const prefixes = new Uint32Array(template.idCount);
  for (let id = 0; id < prefixes.length; id++) prefixes[id] = (Math.random() * 2 ** 32) >>> 0;
  for (const { offset, id } of template.ids) body.writeUInt32BE(prefixes[id]!, offset);
  const nowNanos = BigInt(Date.now()) * 1_000_000n;
  for (const { offset, beforeNanos } of template.times) body.writeBigUInt64LE(nowNanos - beforeNanos, offset);
  return body;
}

const timePlaceholders = new RegExp(`${timePlaceholder}(\\d+)@@`, 'g');

/** The template filled in for one request: random ids, times relative to now, the request's service. */
function envelopeBody(template: string, envelopeNumber: number): string {
  const now = Date.now();
  return withRandomIds(template)
    .replace(timePlaceholders, (_, before: string) => new Date(now - Number(before)).toISOString())
    .replace(servicePlaceholder, serviceName(envelopeNumber % serviceCount));
}

interface LoadResult {
  perSecond: number;
  /** Occurrences per CPU-second the server used: what one uncontended core sustains. */
  perServerCpuSecond: number;
  acknowledged: number;
  p50Ms: number;
  p99Ms: number;
}

/** Sends one request (the n-th of the run) and resolves with the occurrences acknowledged. */
type Send = (envelopeNumber: number) => Promise<number>;

/**
 * Keep-alive connections for the HTTP senders: node:http, which writes a request's body as it
 * is, where fetch (undici) copied each body into a stream of its own and took about a third of a
 * core at 100,000 log records a second, on the 2 cores the server needs too.
 */
const keepAlive = new Agent({ keepAlive: true, maxSockets: concurrency });

/** POSTs `body` and resolves with the response's status and body. */
function post(url: string, contentType: string, body: string | Buffer): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: 'POST', agent: keepAlive, headers: { authorization: `Bearer ${apiKey}`, 'content-type': contentType, 'content-length': Buffer.byteLength(body) } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

/** Protocol v1: the envelope template over HTTP. */
function v1Sender(server: ChildServer<unknown>, template: string): Send {
  const url = `${server.baseUrl}/api/v1/ingest`;
  return async (envelopeNumber) => {
    const response = await post(url, 'application/json', envelopeBody(template, envelopeNumber));
    const result = JSON.parse(response.body.toString()) as { accepted?: { occurrences: number } };
    if (response.status !== 202) throw new Error(`unexpected ${response.status}: ${JSON.stringify(result)}`);
    return result.accepted!.occurrences;
  };
}

/** OTLP/HTTP protobuf: the same spans; an empty response means every one was accepted. */
function otlpHttpSender(server: ChildServer<unknown>, template: OtlpTemplate): Send {
  const url = `${server.baseUrl}/v1/traces`;
  return async () => {
    const response = await post(url, 'application/x-protobuf', otlpBody(template));
    if (response.status !== 200 || response.body.length !== 0) throw new Error(`unexpected ${response.status}: ${response.body.toString()}`);
    return occurrencesPerEnvelope;
  };
}

/** OTLP/HTTP protobuf logs: requests of `logsPerRequest` records; an empty response means every one was accepted. */
function otlpLogsSender(server: ChildServer<unknown>, template: LogsTemplate): Send {
  const url = `${server.baseUrl}/v1/logs`;
  return async () => {
    const response = await post(url, 'application/x-protobuf', logsBody(template));
    if (response.status !== 200 || response.body.length !== 0) throw new Error(`unexpected ${response.status}: ${response.body.toString()}`);
    return logsPerRequest;
  };
}

/** OTLP/gRPC: the same spans over one HTTP/2 connection, as an exporter sends them. */
function otlpGrpcSender(client: Client, template: OtlpTemplate): Send {
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${apiKey}`);
  return () =>
    new Promise((resolve, reject) =>
      client.makeUnaryRequest('/opentelemetry.proto.collector.trace.v1.TraceService/Export', (value: Buffer) => value, (bytes: Buffer) => bytes, otlpBody(template), metadata, (error, response) => {
        if (error) reject(error);
        else if (response!.length !== 0) reject(new Error('partial success'));
        else resolve(occurrencesPerEnvelope);
      }),
    );
}

/** Every request of the run gets its own number (its ids), whatever transport sends it. */
let envelopeCounter = 0;

/** Sends from `concurrency` loops for `seconds`; returns acknowledged occurrences per second. */
async function load(server: ChildServer<unknown>, sendOne: Send): Promise<LoadResult> {
  let acknowledged = 0;
  const latencies: number[] = [];
  const send = async () => {
    envelopeCounter += 1;
    const started = performance.now();
    const accepted = await sendOne(envelopeCounter);
    latencies.push(performance.now() - started);
    return accepted;
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

/** The template spans as ingestion hands them to storage, each starting its `startsBeforeMs` before now. */
function templateRows(): NewOccurrence[] {
  const now = Date.now();
  return templateSpans.map(({ service, occurrence, startsBeforeMs }) => {
    const mapped = mapOccurrence({ ...resource, service }, { ...occurrence, startedAt: new Date(now - startsBeforeMs).toISOString() }, { oldestMs: 0, newestMs: Number.MAX_SAFE_INTEGER });
    if (!mapped.ok) throw new Error(mapped.message);
    return mapped.row;
  });
}

/**
 * The storage ceiling: the same rows (random ids, times of the last 5 s) inserted 500 per
 * statement, one transaction per request, into the same table with its indexes; no HTTP, no
 * parsing or mapping, no rollups. What the service's durable ingest could reach if storing the rows were
 * all it did (an upper bound: the service stores more, the rollups).
 */
async function rawInsertCeiling(dataDir: string): Promise<{ perSecond: number; perCpuSecond: number }> {
  const fileName = 'raw.sqlite';
  const database = await openDatabase({ schema: 'public', poolSize: 1, dataDir, fileName, ...pragmas });
  await migrateToLatest(database.db, database.dialect, observabilityMigrations, 'obs');
  await database.close();
  const file = new SqliteDatabase(join(dataDir, fileName));
  try {
    applySqlitePragmas(file, pragmas);
    const columns = occurrenceColumns.filter((column) => column !== 'error_group_id');
    const tuple = `(${columns.map(() => '?').join(',')})`;
    const insert = file.prepare(`insert into occurrences (${columns.join(',')}) values ${templateSpans.map(() => tuple).join(',')}`);
    // The rows mapped once; each request only gets fresh random ids and times, as the service's do.
    const rows = templateRows();
    const startsBeforeMs = templateSpans.map((span) => span.startsBeforeMs);
    const insertEnvelope = file.transaction(() => {
      const now = Date.now();
      const prefixes = new Map<string, string>();
      const parameters: unknown[] = [];
      rows.forEach((row, index) => {
        for (const column of columns) {
          const value = column === 'received_at' ? now : column === 'started_at' ? now - startsBeforeMs[index]! : row[column];
          if (typeof value === 'string' && value.startsWith(idPlaceholder)) {
            let prefix = prefixes.get(value);
            if (prefix === undefined) prefixes.set(value, (prefix = randomPrefix()));
            parameters.push(prefix + value.slice(idPlaceholder.length));
          } else {
            parameters.push(value);
          }
        }
      });
      insert.run(parameters);
    });
    for (let i = 0; i < 10; i++) insertEnvelope();
    const startedAt = performance.now();
    const cpuBefore = process.cpuUsage();
    let inserted = 0;
    while (performance.now() - startedAt < seconds * 1000) {
      insertEnvelope();
      inserted += templateSpans.length;
    }
    const perSecond = inserted / ((performance.now() - startedAt) / 1000);
    const cpu = process.cpuUsage(cpuBefore);
    return { perSecond, perCpuSecond: inserted / ((cpu.user + cpu.system) / 1e6) };
  } finally {
    file.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(join(dataDir, fileName + suffix), { force: true });
  }
}

function format(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The median figures of one transport's rounds. */
function medianResult(results: LoadResult[]): LoadResult {
  return {
    perSecond: median(results.map((result) => result.perSecond)),
    perServerCpuSecond: median(results.map((result) => result.perServerCpuSecond)),
    acknowledged: results.reduce((sum, result) => sum + result.acknowledged, 0),
    p50Ms: median(results.map((result) => result.p50Ms)),
    p99Ms: median(results.map((result) => result.p99Ms)),
  };
}

const allTransports = ['protocol v1 (JSON)', 'OTLP/HTTP protobuf', 'OTLP/gRPC', 'OTLP/HTTP protobuf logs'] as const;
type Transport = (typeof allTransports)[number];
const spanTransports = parts.has('spans') ? allTransports.slice(0, 3) : [];
const transports: readonly Transport[] = [...spanTransports, ...(parts.has('logs') ? (['OTLP/HTTP protobuf logs'] as const) : [])];

/** One round's figures: each transport's, and the ceilings measured beside them. */
interface Round {
  results: Map<Transport, LoadResult>;
  bare?: LoadResult;
  raw?: { perSecond: number; perCpuSecond: number };
  rawLogs?: { perSecond: number; perCpuSecond: number };
  /** The same raw loop into `logs` without its FTS5 index: what the text index costs. */
  rawLogsWithoutText?: { perSecond: number; perCpuSecond: number };
}

const ratio = (value: number, ceiling: number) => (value / ceiling).toFixed(2);

/** The round's figures with their ratios to the ceilings of the same round. */
function printRound(index: number, round: Round): void {
  const lines = [`round ${index + 1} (load ${loadavg()[0]!.toFixed(1)}):`];
  if (round.bare) lines.push(`  bare route ${format(round.bare.perSecond)}/s (${format(round.bare.perServerCpuSecond)} per CPU-s); raw insert loop ${format(round.raw!.perSecond)}/s (${format(round.raw!.perCpuSecond)} per CPU-s)`);
  for (const transport of spanTransports) {
    const result = round.results.get(transport)!;
    lines.push(
      `  ${transport.padEnd(19)} ${format(result.perSecond)} occurrences/s (${format(result.perServerCpuSecond)} per CPU-s): / bare ${ratio(result.perSecond, round.bare!.perSecond)}, / raw insert ${ratio(result.perSecond, round.raw!.perSecond)} (per CPU-s ${ratio(result.perServerCpuSecond, round.raw!.perCpuSecond)})`,
    );
  }
  const logsResult = round.results.get('OTLP/HTTP protobuf logs');
  if (logsResult && round.rawLogs) {
    lines.push(
      `  logs ${format(logsResult.perSecond)} records/s (${format(logsResult.perServerCpuSecond)} per CPU-s); raw log insert ${format(round.rawLogs.perSecond)}/s (${format(round.rawLogs.perCpuSecond)} per CPU-s): ratio ${ratio(logsResult.perSecond, round.rawLogs.perSecond)} (per CPU-s ${ratio(logsResult.perServerCpuSecond, round.rawLogs.perCpuSecond)}); without the text index ${format(round.rawLogsWithoutText!.perSecond)}/s (${format(round.rawLogsWithoutText!.perCpuSecond)} per CPU-s)`,
    );
  }
  console.log(lines.join('\n'));
}

async function main(): Promise<void> {
  const text = envelopeTemplate();
  const otlp = otlpTemplate();
  const logs = logsTemplate();
  const clientShare = templateSpans.filter((span) => span.occurrence.kind === 'client').length / templateSpans.length;
  console.log(
    `request: ${occurrencesPerEnvelope} occurrences (${serviceCount} services x ${operationsPerService} operations, ${tenantCount} tenants, ${(clientShare * 100).toFixed(0)}% client spans, random ids, started over the last ${spreadMs / 1000} s), ${format(text.length)} bytes as a protocol v1 envelope, ${format(otlp.body.length)} as OTLP protobuf; ${concurrency} requests in flight; ${seconds} s per phase; ${rounds} rounds alternating with the ceilings; synchronous=${synchronous.toUpperCase()}; parts: ${[...parts].join(', ')}`,
  );

  if (transports.length > 0) {
    await withChildServer(
      script,
      { role: 'bare' } satisfies ServeRequest,
      (bareServer) =>
        withTempDir('bench-ingest-', async (dataDir) => {
          const grpcPort = await freePort();
          const env = { DATA_DIR: dataDir, SERVICE_API_KEY: apiKey, INGEST_RATE_LIMIT_PER_SECOND: '1000000', OTLP_GRPC_PORT: String(grpcPort), SQLITE_SYNCHRONOUS: synchronous };
          const rounds_: Round[] = [];
          await withChildServer(
            script,
            { role: 'service', env } satisfies ServeRequest,
            async (server) => {
              const client = new Client(`127.0.0.1:${grpcPort}`, credentials.createInsecure());
              const senders: Record<Transport, Send> = {
                'protocol v1 (JSON)': v1Sender(server, text),
                'OTLP/HTTP protobuf': otlpHttpSender(server, otlp),
                'OTLP/gRPC': otlpGrpcSender(client, otlp),
                'OTLP/HTTP protobuf logs': otlpLogsSender(server, logs),
              };
              try {
                // Alternating, each measurement beside its ceilings in the same round, so load from
                // elsewhere on a shared machine falls on measurements and ceilings alike.
                for (let index = 0; index < rounds; index++) {
                  const round: Round = { results: new Map() };
                  if (spanTransports.length > 0) round.bare = await load(bareServer, v1Sender(bareServer, text));
                  for (const transport of transports) round.results.set(transport, await load(server, senders[transport]));
                  if (spanTransports.length > 0) round.raw = await rawInsertCeiling(dataDir);
                  if (parts.has('logs')) {
                    round.rawLogs = await rawLogInsertCeiling(seconds, pragmas, concurrency);
                    round.rawLogsWithoutText = await rawLogInsertCeiling(seconds, pragmas, concurrency, false);
                  }
                  printRound(index, round);
                  rounds_.push(round);
                }
              } finally {
                client.close();
              }
            },
            targetNodeArgs,
          );
          report(rounds_);
          await checkStored(rounds_, dataDir);
        }),
      targetNodeArgs,
    );
  }

  if (parts.has('stores')) await storeIngestBench(templateRows(), { seconds, concurrency, rounds }, (line) => console.log(line));

  if (parts.has('search') && searchRecords > 0) {
    const { words, traces } = await searchBench(searchRecords, searchRounds, (line) => console.log(line));
    for (const figure of traces) {
      console.log(
        `${figure.what}, a random record's trace: p50 ${figure.p50Ms.toFixed(1)} ms, p95 ${figure.p95Ms.toFixed(1)} ms; the bare read of the record by id p50 ${figure.ceilingP50Ms.toFixed(2)} ms, p95 ${figure.ceilingP95Ms.toFixed(2)} ms`,
      );
    }
    for (const figure of words) {
      console.log(
        `search q=${figure.word} (${format(figure.matchesPerMillion)} per million records), 24 h, newest 50: p50 ${figure.p50Ms.toFixed(1)} ms, p95 ${figure.p95Ms.toFixed(1)} ms; bare FTS5 match p50 ${figure.ceilingP50Ms.toFixed(1)} ms, p95 ${figure.ceilingP95Ms.toFixed(1)} ms; p95 ratio ${(figure.p95Ms / Math.max(figure.ceilingP95Ms, 0.001)).toFixed(1)}; target p95 < 200 ms`,
      );
    }
  }
}

/** The medians over the rounds: of each figure, and of each round's ratio to its own ceiling. */
function report(rounds_: readonly Round[]): void {
  const m = (values: number[]) => median(values);
  console.log(`\nmedians of ${rounds_.length} rounds (load average at the end: ${loadavg()[0]!.toFixed(1)}; per-CPU-second figures are what one uncontended core sustains):`);
  if (spanTransports.length > 0) {
    const bare = rounds_.map((round) => round.bare!);
    const raw = rounds_.map((round) => round.raw!);
    console.log(`bare Fastify route (same bodies, parse only):  ${format(m(bare.map((b) => b.perSecond)))} occurrences/s; ${format(m(bare.map((b) => b.perServerCpuSecond)))} per server CPU-second`);
    console.log(`raw batched insert loop (same rows, no HTTP, no rollups):  ${format(m(raw.map((r) => r.perSecond)))} occurrences/s; ${format(m(raw.map((r) => r.perCpuSecond)))} per CPU-second`);
    for (const transport of spanTransports) {
      const results = rounds_.map((round) => round.results.get(transport)!);
      const summary = medianResult(results);
      console.log(
        `service, SQLite, ${transport.padEnd(19)} accepted and durable: ${format(summary.perSecond)} occurrences/s; ${format(summary.perServerCpuSecond)} per server CPU-second (request p50 ${summary.p50Ms.toFixed(1)} ms, p99 ${summary.p99Ms.toFixed(1)} ms); ` +
          `/ bare route ${m(rounds_.map((round) => round.results.get(transport)!.perSecond / round.bare!.perSecond)).toFixed(2)}, / raw insert loop ${m(rounds_.map((round) => round.results.get(transport)!.perSecond / round.raw!.perSecond)).toFixed(2)} (per CPU-second ${m(rounds_.map((round) => round.results.get(transport)!.perServerCpuSecond / round.raw!.perCpuSecond)).toFixed(2)}); target >= 100,000/s`,
      );
    }
    for (const transport of spanTransports.slice(1)) {
      const wall = m(rounds_.map((round) => round.results.get(transport)!.perSecond / round.results.get('protocol v1 (JSON)')!.perSecond));
      const cpu = m(rounds_.map((round) => round.results.get(transport)!.perServerCpuSecond / round.results.get('protocol v1 (JSON)')!.perServerCpuSecond));
      console.log(`${transport} / protocol v1: ${wall.toFixed(2)} (per CPU-second ${cpu.toFixed(2)}); target >= 0.80 for OTLP/HTTP protobuf`);
    }
  }
  if (parts.has('logs')) {
    const results = rounds_.map((round) => round.results.get('OTLP/HTTP protobuf logs')!);
    const summary = medianResult(results);
    const raw = rounds_.map((round) => round.rawLogs!);
    console.log(`\nlogs: ${logsPerRequest} records per OTLP/HTTP protobuf request`);
    const withoutText = rounds_.map((round) => round.rawLogsWithoutText!);
    console.log(`raw log insert loop (same rows into logs + FTS5, no HTTP, no counts): ${format(m(raw.map((r) => r.perSecond)))} records/s; ${format(m(raw.map((r) => r.perCpuSecond)))} per CPU-second`);
    console.log(`the same loop into logs alone (no text index; what FTS5 costs, not a bound): ${format(m(withoutText.map((r) => r.perSecond)))} records/s; ${format(m(withoutText.map((r) => r.perCpuSecond)))} per CPU-second`);
    console.log(
      `service, SQLite, OTLP/HTTP protobuf logs accepted and durable: ${format(summary.perSecond)} records/s; ${format(summary.perServerCpuSecond)} per server CPU-second (request p50 ${summary.p50Ms.toFixed(1)} ms, p99 ${summary.p99Ms.toFixed(1)} ms); ` +
        `/ raw log insert loop ${m(rounds_.map((round) => round.results.get('OTLP/HTTP protobuf logs')!.perSecond / round.rawLogs!.perSecond)).toFixed(2)} (per CPU-second ${m(rounds_.map((round) => round.results.get('OTLP/HTTP protobuf logs')!.perServerCpuSecond / round.rawLogs!.perCpuSecond)).toFixed(2)}); target >= 100,000/s`,
    );
  }
}

/** Every acknowledged occurrence and log record is in the store (the warm-up requests too). */
async function checkStored(rounds_: readonly Round[], dataDir: string): Promise<void> {
  const store = await openDatabase({ schema: 'public', poolSize: 1, dataDir, fileName: 'observability.sqlite', sqliteSynchronous: 'normal' });
  const stored = Number((await store.db.selectFrom('occurrences').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  const storedLogs = Number((await store.db.selectFrom('logs').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  await store.close();
  const warmUp = 10 * rounds_.length;
  const acknowledged = rounds_.reduce((sum, round) => sum + spanTransports.reduce((inner, transport) => inner + round.results.get(transport)!.acknowledged, 0), 0) + warmUp * occurrencesPerEnvelope * spanTransports.length;
  if (stored !== acknowledged) throw new Error(`stored ${stored} occurrences but ${acknowledged} were acknowledged`);
  const acknowledgedLogs = parts.has('logs') ? rounds_.reduce((sum, round) => sum + round.results.get('OTLP/HTTP protobuf logs')!.acknowledged, 0) + warmUp * logsPerRequest : 0;
  if (storedLogs !== acknowledgedLogs) throw new Error(`stored ${storedLogs} log records but ${acknowledgedLogs} were acknowledged`);
  console.log(`stored ${format(stored)} occurrences and ${format(storedLogs)} log records = acknowledged`);
}

await serveOrRun(serve, main);

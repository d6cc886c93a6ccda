// Ingestion throughput: protocol v1 envelopes of 500 occurrences over HTTP from a concurrent
// client, into the real service on SQLite, and the same 500 spans as OTLP/HTTP protobuf and
// OTLP/gRPC requests to the same service in the same run (the three alternate, BENCH_ROUNDS
// times; each figure is the median of its rounds), with each OTLP rate's ratio to protocol v1's.
// Accepted occurrences are durable (the 202 or 200 follows the commit); the run checks the stored
// count against the acknowledged one. Two ceilings measured in
// the same run: a bare Fastify route taking the same bodies, and a raw batched insert loop of the
// same rows into the same table (better-sqlite3, prepared statement, no rollups). Each figure is
// also given per CPU-second the server used, which stays comparable when other processes compete
// for the cores (on a shared machine the wall-clock figures mostly measure the competition).
//
// Logs: OTLP/HTTP protobuf requests of 1,000 log records (about 300 bytes each) alternate with the
// span transports, beside a raw insert loop of the same rows into the log tables; then a store of
// BENCH_LOG_RECORDS (default 10,000,000) records over 24 hours is seeded in SQL and searched for a
// rare, a typical and a common word (p50/p95 beside the bare FTS5 match). BENCH_LOG_STORE_DIR
// keeps that store (e.g. /tmp/bench-logs-10m) for the next run, which reuses it.
//
//   npx tsx --conditions=source bench/ingest.ts
//
// BENCH_SECONDS (default 10) per phase, BENCH_CONCURRENCY (default 16) requests in flight.
// BENCH_PARTS (default "spans,logs,search") picks parts: "logs" alone runs the log ingest phase
// and its ceiling, "search" alone the search over a seeded store.
// The servers run in child processes, so the load generator does not share their event loop;
// BENCH_TARGET_NODE_ARGS passes Node flags to them, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, credentials, Metadata } from '@grpc/grpc-js';
import Fastify from 'fastify';
import { buildApp, loadObservabilityConfig } from '@playstack/observability-service';
import { migrateToLatest, openDatabase, SqliteDatabase } from '@playstack/server-kit';
import { observabilityMigrations } from '../packages/observability-service/src/migrations/index.js';
import { mapOccurrence } from '../packages/observability-service/src/ingest/occurrence-mapper.js';
import type { ProtocolOccurrence } from '../packages/observability-service/src/ingest/protocol-types.js';
import { encodeOtlp } from '../packages/observability-service/src/otlp/otlp-encoding.js';
import { otlpType } from '../packages/observability-service/src/otlp/otlp-protos.js';
import { freePort } from '@playstack/server-kit/testing';
import { listenInChild, serveOrRun, serviceNodeFlags, withChildServer, type ChildServer } from './support/http-load.js';
import { logsBody, logsPerRequest, logsTemplate, rawLogInsertCeiling, searchBench, type LogsTemplate } from './support/logs-bench.js';
import { withTempDir } from './support/scratch.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
/** Log records the search part seeds (BENCH_LOG_RECORDS; 0 skips it), and searches per word. */
const searchRecords = Number(process.env.BENCH_LOG_RECORDS ?? 10_000_000);
const searchRounds = Number(process.env.BENCH_SEARCH_ROUNDS ?? 40);
const parts = new Set((process.env.BENCH_PARTS ?? 'spans,logs,search').split(',').map((part) => part.trim()));
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

const otlpKinds: Record<string, number> = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 };
const idMarker = Buffer.from(idPlaceholder, 'hex');

/** An OTLP request body with the places each request rewrites: ids (a fresh number) and times (now). */
interface OtlpTemplate {
  body: Buffer;
  idOffsets: number[];
  /** Where each span's start and end times are (fixed64, little-endian), and their value in the template. */
  times: Array<{ offset: number; nanos: bigint }>;
  templateNanos: bigint;
}

/**
 * The same occurrences as one OTLP ExportTraceServiceRequest in binary protobuf (the body of both
 * OTLP/HTTP and OTLP/gRPC), with the offsets of the id placeholders and of the span times, so each
 * request gets fresh ids and the current time, as protocol v1's envelopes do.
 */
function otlpTemplate(occurrences: readonly ProtocolOccurrence[]): OtlpTemplate {
  const startNanos = BigInt(Date.now()) * 1_000_000n;
  const attribute = (key: string, value: string | number) => ({ key, value: typeof value === 'number' ? { intValue: value } : { stringValue: value } });
  const spans = occurrences.map((occurrence) => {
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
    return {
      traceId: Buffer.from(occurrence.traceId, 'hex'),
      spanId: Buffer.from(occurrence.spanId, 'hex'),
      parentSpanId: occurrence.parentSpanId ? Buffer.from(occurrence.parentSpanId, 'hex') : undefined,
      name: occurrence.operation,
      kind: otlpKinds[occurrence.kind],
      startTimeUnixNano: String(startNanos),
      endTimeUnixNano: String(startNanos + BigInt(Math.round(occurrence.durationMs * 1e6))),
      attributes,
      status: occurrence.status === 'error' ? { code: 2 } : {},
    };
  });
  const resourceAttributes = [
    attribute('service.name', resource.service),
    attribute('deployment.environment.name', resource.environment),
    attribute('service.version', resource.version),
    attribute('service.instance.id', resource.instance),
  ];
  const request = { resourceSpans: [{ resource: { attributes: resourceAttributes }, scopeSpans: [{ scope: { name: 'bench' }, spans }] }] };
  const body = encodeOtlp(otlpType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest'), request, 'protobuf') as Buffer;
  const idOffsets: number[] = [];
  for (let at = body.indexOf(idMarker); at !== -1; at = body.indexOf(idMarker, at + idMarker.length)) idOffsets.push(at);
  const ids = occurrences.length * 2 + occurrences.filter((occurrence) => occurrence.parentSpanId).length;
  if (idOffsets.length !== ids) throw new Error(`found ${idOffsets.length} id placeholders in the OTLP body, expected ${ids}`);
  // Fields are encoded in field-number order (start_time 7, end_time 8), so each time follows the previous one.
  const times: OtlpTemplate['times'] = [];
  let from = 0;
  for (const span of spans) {
    for (const nanos of [BigInt(span.startTimeUnixNano), BigInt(span.endTimeUnixNano)]) {
      const bytes = Buffer.alloc(8);
      bytes.writeBigUInt64LE(nanos);
      const offset = body.indexOf(bytes, from);
      if (offset === -1) throw new Error('a span time is missing from the OTLP body');
      times.push({ offset, nanos });
      from = offset + 8;
    }
  }
  return { body, idOffsets, times, templateNanos: startNanos };
}

/** The OTLP template with this request's ids, its spans starting now. */
function otlpBody(template: OtlpTemplate, envelopeNumber: number): Buffer {
  const body = Buffer.from(template.body);
  for (const offset of template.idOffsets) body.writeUInt32BE(envelopeNumber, offset);
  const shift = BigInt(Date.now()) * 1_000_000n - template.templateNanos;
  for (const { offset, nanos } of template.times) body.writeBigUInt64LE(nanos + shift, offset);
  return body;
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

/** Sends one request (the n-th of the run) and resolves with the occurrences acknowledged. */
type Send = (envelopeNumber: number) => Promise<number>;

/** Protocol v1: the envelope template over HTTP. */
function v1Sender(server: ChildServer<unknown>, template: string): Send {
  const url = `${server.baseUrl}/api/v1/ingest`;
  return async (envelopeNumber) => {
    const body = envelopeBody(template, envelopeNumber);
    const response = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body });
    const result = (await response.json()) as { accepted?: { occurrences: number } };
    if (response.status !== 202) throw new Error(`unexpected ${response.status}: ${JSON.stringify(result)}`);
    return result.accepted!.occurrences;
  };
}

/** OTLP/HTTP protobuf: the same spans; an empty response means every one was accepted. */
function otlpHttpSender(server: ChildServer<unknown>, template: OtlpTemplate): Send {
  const url = `${server.baseUrl}/v1/traces`;
  return async (envelopeNumber) => {
    const response = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/x-protobuf' }, body: otlpBody(template, envelopeNumber) });
    const answer = Buffer.from(await response.arrayBuffer());
    if (response.status !== 200 || answer.length !== 0) throw new Error(`unexpected ${response.status}: ${answer.toString()}`);
    return occurrencesPerEnvelope;
  };
}

/** OTLP/HTTP protobuf logs: requests of `logsPerRequest` records; an empty response means every one was accepted. */
function otlpLogsSender(server: ChildServer<unknown>, template: LogsTemplate): Send {
  const url = `${server.baseUrl}/v1/logs`;
  return async (requestNumber) => {
    const response = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/x-protobuf' }, body: logsBody(template, requestNumber) });
    const answer = Buffer.from(await response.arrayBuffer());
    if (response.status !== 200 || answer.length !== 0) throw new Error(`unexpected ${response.status}: ${answer.toString()}`);
    return logsPerRequest;
  };
}

/** OTLP/gRPC: the same spans over one HTTP/2 connection, as an exporter sends them. */
function otlpGrpcSender(client: Client, template: OtlpTemplate): Send {
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${apiKey}`);
  return (envelopeNumber) =>
    new Promise((resolve, reject) =>
      client.makeUnaryRequest('/opentelemetry.proto.collector.trace.v1.TraceService/Export', (value: Buffer) => value, (bytes: Buffer) => bytes, otlpBody(template, envelopeNumber), metadata, (error, response) => {
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

async function main(): Promise<void> {
  const { text, occurrences } = envelopeTemplate();
  const otlp = otlpTemplate(occurrences);
  const logs = logsTemplate();
  console.log(
    `request: ${occurrencesPerEnvelope} occurrences, ${format(text.length)} bytes as a protocol v1 envelope, ${format(otlp.body.length)} as OTLP protobuf; ${concurrency} requests in flight; ${seconds} s per phase; ${rounds} rounds; parts: ${[...parts].join(', ')}`,
  );

  if (transports.length > 0) {
    const bareResult = parts.has('spans') ? await withChildServer(script, { role: 'bare' } satisfies ServeRequest, (server) => load(server, v1Sender(server, text)), targetNodeArgs) : undefined;
    await withTempDir('bench-ingest-', async (dataDir) => {
      const grpcPort = await freePort();
      const env = { DATA_DIR: dataDir, SERVICE_API_KEY: apiKey, INGEST_RATE_LIMIT_PER_SECOND: '1000000', OTLP_GRPC_PORT: String(grpcPort) };
      const results = new Map<Transport, LoadResult[]>(transports.map((transport) => [transport, []]));
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
            // Alternating, so load from elsewhere on a shared machine falls on every transport alike.
            for (let round = 0; round < rounds; round++) {
              for (const transport of transports) results.get(transport)!.push(await load(server, senders[transport]));
            }
          } finally {
            client.close();
          }
        },
        targetNodeArgs,
      );
      const byTransport = new Map(transports.map((transport) => [transport, medianResult(results.get(transport)!)]));

      const store = await openDatabase({ schema: 'public', poolSize: 1, dataDir, fileName: 'observability.sqlite', sqliteSynchronous: 'normal' });
      const stored = Number((await store.db.selectFrom('occurrences').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
      const storedLogs = Number((await store.db.selectFrom('logs').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
      await store.close();
      const warmUp = 10 * occurrencesPerEnvelope * rounds * spanTransports.length;
      const acknowledged = spanTransports.reduce((sum, transport) => sum + byTransport.get(transport)!.acknowledged, 0) + warmUp;
      if (stored !== acknowledged) throw new Error(`stored ${stored} occurrences but ${acknowledged} were acknowledged`);
      console.log(`load average at the end: ${loadavg()[0]!.toFixed(1)} (per-CPU-second figures are what one uncontended core sustains)`);

      if (bareResult) {
        const raw = await rawInsertCeiling(occurrences);
        console.log(
          `bare Fastify route (same bodies, parse only):  ${format(bareResult.perSecond)} occurrences/s; ${format(bareResult.perServerCpuSecond)} per server CPU-second (envelope p50 ${bareResult.p50Ms.toFixed(1)} ms, p99 ${bareResult.p99Ms.toFixed(1)} ms)`,
        );
        console.log(`raw batched insert loop (same rows, no HTTP):  ${format(raw.perSecond)} occurrences/s; ${format(raw.perCpuSecond)} per CPU-second`);
        const v1 = byTransport.get('protocol v1 (JSON)')!;
        for (const transport of spanTransports) {
          const result = byTransport.get(transport)!;
          console.log(
            `service, SQLite, ${transport.padEnd(19)} accepted and durable: ${format(result.perSecond)} occurrences/s; ${format(result.perServerCpuSecond)} per server CPU-second (request p50 ${result.p50Ms.toFixed(1)} ms, p99 ${result.p99Ms.toFixed(1)} ms)`,
          );
        }
        console.log(`stored ${format(stored)} = acknowledged`);
        for (const transport of spanTransports.slice(1)) {
          const result = byTransport.get(transport)!;
          console.log(`${transport} / protocol v1: ${(result.perSecond / v1.perSecond).toFixed(2)} (per CPU-second ${(result.perServerCpuSecond / v1.perServerCpuSecond).toFixed(2)}); target >= 0.80 for OTLP/HTTP protobuf`);
        }
        console.log(
          `protocol v1 / bare route: ${(v1.perSecond / bareResult.perSecond).toFixed(2)} (per CPU-second ${(v1.perServerCpuSecond / bareResult.perServerCpuSecond).toFixed(2)}); protocol v1 / raw insert loop: ${(v1.perSecond / raw.perSecond).toFixed(2)} (per CPU-second ${(v1.perServerCpuSecond / raw.perCpuSecond).toFixed(2)})`,
        );
      }

      const logsResult = byTransport.get('OTLP/HTTP protobuf logs');
      if (logsResult) {
        const acknowledgedLogs = logsResult.acknowledged + 10 * logsPerRequest * rounds;
        if (storedLogs !== acknowledgedLogs) throw new Error(`stored ${storedLogs} log records but ${acknowledgedLogs} were acknowledged`);
        const rawLogs = await rawLogInsertCeiling(seconds);
        console.log(`\nlogs: ${logsPerRequest} records per OTLP/HTTP protobuf request, ${logs.bytesPerRecord.toFixed(0)} bytes per record on the wire`);
        console.log(`raw log insert loop (same rows into logs + FTS5, no HTTP): ${format(rawLogs.perSecond)} records/s; ${format(rawLogs.perCpuSecond)} per CPU-second`);
        console.log(
          `service, SQLite, OTLP/HTTP protobuf logs accepted and durable: ${format(logsResult.perSecond)} records/s; ${format(logsResult.perServerCpuSecond)} per server CPU-second (request p50 ${logsResult.p50Ms.toFixed(1)} ms, p99 ${logsResult.p99Ms.toFixed(1)} ms); target >= 100,000/s`,
        );
        console.log(`stored ${format(storedLogs)} log records = acknowledged; logs / raw insert loop: ${(logsResult.perSecond / rawLogs.perSecond).toFixed(2)} (per CPU-second ${(logsResult.perServerCpuSecond / rawLogs.perCpuSecond).toFixed(2)})`);
      }
    });
  }

  if (parts.has('search') && searchRecords > 0) {
    const figures = await searchBench(searchRecords, searchRounds, (line) => console.log(line));
    for (const figure of figures) {
      console.log(
        `search q=${figure.word} (${format(figure.matchesPerMillion)} per million records), 24 h, newest 50: p50 ${figure.p50Ms.toFixed(1)} ms, p95 ${figure.p95Ms.toFixed(1)} ms; bare FTS5 match p50 ${figure.ceilingP50Ms.toFixed(1)} ms, p95 ${figure.ceilingP95Ms.toFixed(1)} ms; p95 ratio ${(figure.p95Ms / Math.max(figure.ceilingP95Ms, 0.001)).toFixed(1)}; target p95 < 200 ms`,
      );
    }
  }
}

await serveOrRun(serve, main);

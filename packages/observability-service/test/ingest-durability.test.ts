import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { Client, credentials, Metadata } from '@grpc/grpc-js';
import { openDatabase } from '@playstack/server-kit';
import { describeEachDatabase, freePort, sendUntilKilled, startServiceProcess, type ServiceProcess } from '@playstack/server-kit/testing';
import { loadObservabilityConfig } from '../src/config.js';
import { envelope, minimalOccurrence } from './support/envelopes.js';
import { encodeTraceRequest, jsonLogRecord, jsonLogsRequest, jsonSpan, jsonTraceRequest, logsRequestType } from './support/otlp-requests.js';

const main = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const legacyKey = 'durability-test-key-0123456789';
const occurrencesPerEnvelope = 100;
const concurrentSenders = 6;
/** The process is killed once this many envelopes have been acknowledged. */
const killAfterAcknowledged = 25;

interface RunningService extends ServiceProcess {
  grpcAddress: string;
}

/** Sends one request of `occurrencesPerEnvelope` spans (or log records) of a new trace; resolves once it is acknowledged in full. */
type Sender = (service: RunningService, traceId: string) => Promise<void>;

/** Where each transport's items are stored. */
const storedIn: Record<string, 'occurrences' | 'logs'> = { 'OTLP/HTTP protobuf logs': 'logs' };

const otlpSpans = (traceId: string) => Array.from({ length: occurrencesPerEnvelope }, () => jsonSpan({ traceId }));

const senders: Record<string, Sender> = {
  'protocol v1': async (service, traceId) => {
    const occurrences = Array.from({ length: occurrencesPerEnvelope }, () => minimalOccurrence(new Date().toISOString(), { traceId }));
    const response = await fetch(`${service.baseUrl}/api/v1/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${legacyKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(envelope(occurrences)),
    });
    if (response.status !== 202) throw new Error(`unexpected ${response.status}: ${await response.text()}`);
    expect(((await response.json()) as { accepted: unknown }).accepted).toEqual({ occurrences: occurrencesPerEnvelope, logs: 0 });
  },
  'OTLP/HTTP protobuf': async (service, traceId) => {
    const response = await fetch(`${service.baseUrl}/v1/traces`, {
      method: 'POST',
      headers: { authorization: `Bearer ${legacyKey}`, 'content-type': 'application/x-protobuf' },
      body: encodeTraceRequest(jsonTraceRequest(otlpSpans(traceId)), 'protobuf'),
    });
    if (response.status !== 200) throw new Error(`unexpected ${response.status}`);
    // An empty ExportTraceServiceResponse: every span accepted.
    expect((await response.arrayBuffer()).byteLength).toBe(0);
  },
  'OTLP/HTTP protobuf logs': async (service, traceId) => {
    const records = Array.from({ length: occurrencesPerEnvelope }, () => jsonLogRecord({ traceId }));
    const response = await fetch(`${service.baseUrl}/v1/logs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${legacyKey}`, 'content-type': 'application/x-protobuf' },
      body: encodeTraceRequest(jsonLogsRequest(records), 'protobuf', logsRequestType),
    });
    if (response.status !== 200) throw new Error(`unexpected ${response.status}`);
    expect((await response.arrayBuffer()).byteLength).toBe(0);
  },
  'OTLP/gRPC': async (service, traceId) => {
    const client = new Client(service.grpcAddress, credentials.createInsecure());
    const metadata = new Metadata();
    metadata.set('authorization', `Bearer ${legacyKey}`);
    const body = encodeTraceRequest(jsonTraceRequest(otlpSpans(traceId)), 'protobuf');
    try {
      const response = await new Promise<Buffer>((resolve, reject) =>
        client.makeUnaryRequest('/opentelemetry.proto.collector.trace.v1.TraceService/Export', (value: Buffer) => value, (bytes: Buffer) => bytes, body, metadata, (error, value) =>
          error ? reject(error) : resolve(value!),
        ),
      );
      expect(response.length).toBe(0);
    } finally {
      client.close();
    }
  },
};

/** Starts the real service (src/main.ts) and resolves once it listens. */
async function startService(env: Record<string, string>): Promise<RunningService> {
  const grpcPort = await freePort();
  const service = await startServiceProcess(main, {
    ...env,
    OBSERVABILITY_PORT: '0',
    OTLP_GRPC_PORT: String(grpcPort),
    LOG_LEVEL: 'info',
    SERVICE_API_KEY: legacyKey,
    INGEST_RATE_LIMIT_PER_SECOND: '100000',
  });
  return { ...service, grpcAddress: `127.0.0.1:${grpcPort}` };
}

// Each case starts the service twice as a child process under tsx: 10-30 s on a loaded machine.
describeEachDatabase('durability of acknowledged envelopes', (database) => {
  for (const [transport, send] of Object.entries(senders)) {
  const table = storedIn[transport] ?? 'occurrences';
  it(`${transport}: keeps every acknowledged ${table === 'logs' ? 'log record' : 'occurrence'} when the process is killed with SIGKILL right after its acknowledgements`, { timeout: 120_000 }, async () => {
    const env = { ...database().env };
    const service = await startService(env);
    const acknowledged = await sendUntilKilled(service, {
      senders: concurrentSenders,
      killAfter: killAfterAcknowledged,
      send: async () => {
        const traceId = randomBytes(16).toString('hex');
        await send(service, traceId);
        return traceId;
      },
    });
    expect(acknowledged.length).toBeGreaterThanOrEqual(killAfterAcknowledged);

    // A restart recovers the store and serves again; then every acknowledged occurrence is there.
    const restarted = await startService(env);
    try {
      expect((await fetch(`${restarted.baseUrl}/readyz`)).status).toBe(200);
    } finally {
      restarted.child.kill('SIGTERM');
      await restarted.exited;
    }
    const config = loadObservabilityConfig({ LOG_LEVEL: 'silent', ...env });
    const store = await openDatabase({
      url: config.DATABASE_URL,
      schema: config.DATABASE_SCHEMA,
      poolSize: 2,
      dataDir: config.DATA_DIR,
      fileName: 'observability.sqlite',
      sqliteSynchronous: config.SQLITE_SYNCHRONOUS,
    });
    try {
      const rows = await store.db
        .selectFrom(table)
        .select(['trace_id', (eb) => eb.fn.countAll().as('n')])
        .where('trace_id', 'in', acknowledged)
        .groupBy('trace_id')
        .execute();
      const counts = new Map(rows.map((row) => [row.trace_id as string, Number(row.n)]));
      for (const traceId of acknowledged) expect(counts.get(traceId), traceId).toBe(occurrencesPerEnvelope);
      if (table === 'logs') {
        const stored = await store.db.selectFrom('logs').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
        const counted = await store.db.selectFrom('log_counts').select((eb) => eb.fn.sum('count').as('n')).where('period_ms', '=', 60_000).executeTakeFirstOrThrow();
        expect(Number(counted.n)).toBe(Number(stored.n));
        return;
      }
      const rolledUp = await store.db.selectFrom('operation_rollups').select((eb) => eb.fn.sum('count').as('n')).executeTakeFirstOrThrow();
      const stored = await store.db.selectFrom('occurrences').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
      expect(Number(rolledUp.n)).toBe(Number(stored.n));
    } finally {
      await store.close();
    }
  });
  }
});

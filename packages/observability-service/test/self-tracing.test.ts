import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import type { App } from '@playstack/server-kit';
import { describeEachDatabase, freePort } from '@playstack/server-kit/testing';
import { asBrowser, setUpFirstAdmin, type BrowserSession } from './support/browser-session.js';
import { exportSpans, recordSampleTrace } from './support/otlp-sample-trace.js';
import { buildTestApp } from './support/test-app.js';
import type { Occurrence } from '../src/query/query-schemas.js';

const legacyKey = 'self-tracing-key-0123456789';
const selfExport = {
  OTEL_EXPORTER_OTLP_HEADERS: `Authorization=Bearer%20${legacyKey}`,
  OTEL_BSP_SCHEDULE_DELAY: '50',
};

/** A span as the trace read API returns it. */
type StoredSpan = Occurrence;

describeEachDatabase('the observability service tracing itself, into itself', (database) => {
  let app: App;
  let session: BrowserSession;
  let baseUrl: string;

  beforeAll(async () => {
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    // The standard variables, pointed at this very service: the loop an operator could set up.
    Object.assign(process.env, selfExport, { OTEL_EXPORTER_OTLP_ENDPOINT: baseUrl });
    app = await buildTestApp(database(), { SERVICE_API_KEY: legacyKey });
    await app.listen({ port, host: '127.0.0.1' });
    session = await setUpFirstAdmin(app);
  });
  afterAll(async () => {
    await app.close();
    for (const name of [...Object.keys(selfExport), 'OTEL_EXPORTER_OTLP_ENDPOINT']) delete process.env[name];
  });

  async function storedTrace(traceId: string): Promise<{ status: number; spans: StoredSpan[] }> {
    const response = await asBrowser(app, session, { url: `/api/v1/traces/${traceId}` });
    return { status: response.statusCode, spans: response.statusCode === 200 ? (response.json() as { spans: StoredSpan[] }).spans : [] };
  }

  async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const value = await read();
      if (done(value) || Date.now() > deadline) return value;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Server spans of the service itself, per operation, from the read API. */
  async function ownServerSpans(): Promise<Map<string, number>> {
    const response = await asBrowser(app, session, { url: '/api/v1/operations?service=observability-service&entry=true&limit=100' });
    expect(response.statusCode).toBe(200);
    const { operations } = response.json() as { operations: Array<{ operation: string; count: number }> };
    return new Map(operations.map((row) => [row.operation, row.count]));
  }

  it('stores its own read requests as server spans with their SQL spans under them', async () => {
    const traceId = randomBytes(16).toString('hex');
    const response = await asBrowser(app, session, { url: '/api/v1/services', headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` } });
    expect(response.statusCode).toBe(200);
    const { spans } = await eventually(
      () => storedTrace(traceId),
      (trace) => trace.spans.some((span) => span.kind === 'server') && trace.spans.some((span) => span.db !== null),
    );
    const server = spans.find((span) => span.kind === 'server');
    expect(server).toMatchObject({ service: 'observability-service', operation: 'GET /api/v1/services' });
    const sql = spans.filter((span) => span.db !== null);
    expect(sql.length).toBeGreaterThan(0);
    for (const span of sql) {
      expect(span.parentSpanId).toBe(server!.spanId);
      expect(span.db!.system).toBe(database().dialect === 'sqlite' ? 'sqlite' : 'postgresql');
    }
  });

  it('creates no telemetry about its ingest, even of a request that carries a traceparent', async () => {
    const traceId = randomBytes(16).toString('hex');
    const sample = await recordSampleTrace('checkout');
    const exporter = new OTLPTraceExporter({ url: `${baseUrl}/v1/traces`, headers: { Authorization: `Bearer ${legacyKey}`, traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` } });
    const result = await exportSpans(exporter, sample.spans);
    await exporter.shutdown();
    expect(result.error).toBeUndefined();
    // The sample is stored (the ingest worked) ...
    const sampleTrace = await eventually(
      () => storedTrace(sample.server.spanContext().traceId),
      (trace) => trace.status === 200,
    );
    expect(sampleTrace.spans.map((span) => span.service)).toContain('checkout');
    // ... and while its own spans keep flowing in through that ingest, none is of an ingest
    // request, and nothing more arrives when nobody asks it anything: no loop.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await storedTrace(traceId)).status).toBe(404);
    // Its own spans settle once nobody asks it anything: a loop would keep them growing. (The
    // reads of the operations list are themselves traced, so they are left out of the count.)
    const settled = (spans: Map<string, number>) => JSON.stringify([...spans].filter(([operation]) => operation !== 'GET /api/v1/operations').sort());
    let previous = settled(await ownServerSpans());
    let current = '';
    for (let attempt = 0; attempt < 10 && current !== previous; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      [previous, current] = [current || previous, settled(await ownServerSpans())];
    }
    expect(current).toBe(previous);
    const own = new Map(JSON.parse(current) as Array<[string, number]>);
    expect([...own.keys()].filter((operation) => /^POST \/(v1\/(traces|logs)|api\/v1\/ingest)$/.test(operation))).toEqual([]);
    expect(own.get('GET /api/v1/traces/:traceId')).toBeGreaterThan(0);
  });
});

describeEachDatabase('the observability service tracing itself over OTLP/gRPC (OTEL_EXPORTER_OTLP_PROTOCOL=grpc)', (database) => {
  let app: App;
  let session: BrowserSession;
  const grpcExport = { ...selfExport, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' };

  beforeAll(async () => {
    const grpcPort = await freePort();
    // The SDK's gRPC exporter (grpc-js), sending to this service's own OTLP/gRPC receiver.
    Object.assign(process.env, grpcExport, { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${grpcPort}` });
    app = await buildTestApp(database(), { SERVICE_API_KEY: legacyKey, OTLP_GRPC_PORT: String(grpcPort) });
    await app.listen({ port: 0, host: '127.0.0.1' });
    session = await setUpFirstAdmin(app);
  });
  afterAll(async () => {
    await app.close();
    for (const name of [...Object.keys(grpcExport), 'OTEL_EXPORTER_OTLP_ENDPOINT']) delete process.env[name];
  });

  it('its read requests arrive over gRPC as server spans, the key in the headers variable, with their SQL spans under them', async () => {
    const traceId = randomBytes(16).toString('hex');
    const response = await asBrowser(app, session, { url: '/api/v1/services', headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` } });
    expect(response.statusCode).toBe(200);
    const deadline = Date.now() + 10_000;
    let spans: StoredSpan[] = [];
    while (Date.now() < deadline && !(spans.some((span) => span.kind === 'server') && spans.some((span) => span.db !== null))) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const read = await asBrowser(app, session, { url: `/api/v1/traces/${traceId}` });
      if (read.statusCode === 200) spans = (read.json() as { spans: StoredSpan[] }).spans;
    }
    const server = spans.find((span) => span.kind === 'server');
    expect(server).toMatchObject({ service: 'observability-service', operation: 'GET /api/v1/services' });
    const sql = spans.filter((span) => span.db !== null);
    expect(sql.length).toBeGreaterThan(0);
    for (const span of sql) expect(span.parentSpanId).toBe(server!.spanId);
  });
});

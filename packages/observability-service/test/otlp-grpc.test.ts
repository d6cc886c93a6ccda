import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, credentials, Metadata, status as GrpcStatus, type ChannelCredentials, type ServiceError } from '@grpc/grpc-js';
import { diag, DiagLogLevel } from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import { OTLPTraceExporter as GrpcExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { ManualClock, type App } from '@playstack/server-kit';
import { createTestDatabase, describeEachDatabase, freePort, type TestDatabase } from '@playstack/server-kit/testing';
import { asBrowser, firstAdminSession, type BrowserSession } from './support/browser-session.js';
import { expectSampleTraceStored, exportSpans, recordSampleTrace } from './support/otlp-sample-trace.js';
import { decodeBody, encodeTraceRequest, jsonSpan, jsonTraceRequest, statusType, traceResponseType } from './support/otlp-requests.js';
import { buildTestApp } from './support/test-app.js';

const key = 'otlp-grpc-test-key-0123456789';
const exportPath = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';
const bodyLimitBytes = 64 * 1024;

/** A raw unary call of TraceService/Export: the response bytes, or the error with its decoded google.rpc.Status. */
function callExport(address: string, body: Buffer, options: { key?: string | undefined; gzip?: boolean; credentials?: ChannelCredentials } = {}) {
  const client = new Client(address, options.credentials ?? credentials.createInsecure(), options.gzip ? { 'grpc.default_compression_algorithm': 2 } : {});
  const metadata = new Metadata();
  if (options.key !== undefined) metadata.set('authorization', `Bearer ${options.key}`);
  return new Promise<{ response?: Buffer; error?: ServiceError; status?: Record<string, unknown> }>((resolve) => {
    client.makeUnaryRequest(exportPath, (value: Buffer) => value, (bytes: Buffer) => bytes, body, metadata, (error, response) => {
      client.close();
      if (!error) return resolve({ response: response! });
      const details = error.metadata?.get('grpc-status-details-bin')[0];
      resolve({ error, status: details ? decodeBody(statusType, details as Buffer, 'protobuf') : undefined });
    });
  });
}

function grpcExporter(address: string, exporterKey = key) {
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${exporterKey}`);
  return new GrpcExporter({ url: `http://${address}`, metadata });
}

const diagnostics: string[] = [];
diag.setLogger({ error: (...args) => diagnostics.push(args.join(' ')), warn: (...args) => diagnostics.push(args.join(' ')), info: () => {}, debug: () => {}, verbose: () => {} }, DiagLogLevel.WARN);

describeEachDatabase('OTLP/gRPC TraceService/Export', (database) => {
  const clock = new ManualClock(Date.now());
  let app: App;
  let address: string;
  let session: BrowserSession;
  beforeAll(async () => {
    const port = await freePort();
    address = `127.0.0.1:${port}`;
    app = await buildTestApp(database(), { SERVICE_API_KEY: key, OTLP_GRPC_PORT: String(port), OBSERVABILITY_BODY_LIMIT_BYTES: String(bodyLimitBytes), INGEST_RATE_LIMIT_PER_SECOND: '2' }, { clock });
    await app.ready();
    session = await firstAdminSession(app);
  });
  afterAll(async () => {
    await app?.close();
  });
  // Each test starts in a fresh rate window of its own.
  const nextWindow = () => clock.advance(1_000);

  it('one span with a bad span id among good ones is a partial success; the exporter logs it and the good ones are stored', async () => {
    nextWindow();
    const sample = await recordSampleTrace('grpc-partial');
    const [producer, query, server] = sample.spans as [ReadableSpan, ReadableSpan, ReadableSpan];
    const badQuery = Object.create(query, { spanContext: { value: () => ({ ...query.spanContext(), spanId: 'abcdef' }) } }) as ReadableSpan;
    diagnostics.length = 0;
    const result = await exportSpans(grpcExporter(address), [producer, badQuery, server]);
    expect(result.code).toBe(ExportResultCode.SUCCESS);
    expect(diagnostics.join('\n')).toMatch(/partial success/i);
    const raw = await callExport(address, encodeTraceRequest(jsonTraceRequest([jsonSpan(), jsonSpan({ spanId: 'abcd' })]), 'protobuf'), { key });
    expect(decodeBody(traceResponseType, raw.response!, 'protobuf')).toEqual({ partialSuccess: { rejectedSpans: '1', errorMessage: 'span 1: spanId must be 8 bytes (16 hex characters in JSON); it has 2' } });
    const stored = await asBrowser(app, session, { url: `/api/v1/traces/${server.spanContext().traceId}` });
    expect(stored.json().spans.map((span: { operation: string }) => span.operation)).toEqual(['POST /orders']);
  });

  it('an empty request is a success with an empty response', async () => {
    nextWindow();
    expect(await callExport(address, Buffer.alloc(0), { key })).toEqual({ response: Buffer.alloc(0) });
  });

  it('an undecodable message is INVALID_ARGUMENT with BadRequest in its status details', async () => {
    nextWindow();
    const { error, status } = await callExport(address, Buffer.from([0x0a, 0xff, 0xff, 0xff]), { key });
    expect(error?.code).toBe(GrpcStatus.INVALID_ARGUMENT);
    expect(error?.details).toMatch(/^The body is not a protobuf ExportTraceServiceRequest/);
    expect(status).toMatchObject({ code: GrpcStatus.INVALID_ARGUMENT, details: expect.arrayContaining([expect.objectContaining({ '@type': 'type.googleapis.com/google.rpc.BadRequest' })]) });
  });

  it('a wrong or missing key is UNAUTHENTICATED, which the exporter reports as a failure', async () => {
    nextWindow();
    const sample = await recordSampleTrace('grpc-wrong-key');
    const result = await exportSpans(grpcExporter(address, 'not-a-key-of-ours'), sample.spans);
    expect(result.code).toBe(ExportResultCode.FAILED);
    expect((result.error as ServiceError).code).toBe(GrpcStatus.UNAUTHENTICATED);
    const missing = await callExport(address, encodeTraceRequest(jsonTraceRequest([jsonSpan()]), 'protobuf'));
    expect(missing.error?.code).toBe(GrpcStatus.UNAUTHENTICATED);
    expect(missing.status).toMatchObject({ code: GrpcStatus.UNAUTHENTICATED, message: 'Ingestion needs Authorization: Bearer <ingestion key>.' });
  });

  it('a message over the limit, as sent or decompressed, is RESOURCE_EXHAUSTED without retry info (not retryable)', async () => {
    nextWindow();
    const big = encodeTraceRequest(jsonTraceRequest(Array.from({ length: 80 }, () => jsonSpan({ name: 'x'.repeat(1000) }))), 'protobuf');
    expect(big.length).toBeGreaterThan(bodyLimitBytes);
    expect(gzipSync(big).length).toBeLessThan(bodyLimitBytes);
    for (const gzip of [false, true]) {
      const { error, status } = await callExport(address, big, { key, gzip });
      expect(error?.code).toBe(GrpcStatus.RESOURCE_EXHAUSTED);
      expect(status).toBeUndefined();
    }
  });

  it("over the key's rate is RESOURCE_EXHAUSTED with RetryInfo, so clients may retry after the delay", async () => {
    nextWindow();
    const body = encodeTraceRequest(jsonTraceRequest([jsonSpan()]), 'protobuf');
    await callExport(address, body, { key });
    await callExport(address, body, { key });
    const { error, status } = await callExport(address, body, { key });
    expect(error?.code).toBe(GrpcStatus.RESOURCE_EXHAUSTED);
    expect(status).toMatchObject({ code: GrpcStatus.RESOURCE_EXHAUSTED, message: expect.stringMatching(/faster than its configured rate/) });
    expect(status!.details).toContainEqual({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: { seconds: '1' } });
  });

  it('storage failing is UNAVAILABLE with RetryInfo, and nothing is kept', async () => {
    nextWindow();
    await app.database.db.schema.alterTable('occurrences').renameTo('occurrences_away').execute();
    try {
      const { error, status } = await callExport(address, encodeTraceRequest(jsonTraceRequest([jsonSpan()]), 'protobuf'), { key });
      expect(error?.code).toBe(GrpcStatus.UNAVAILABLE);
      expect(status!.details).toContainEqual({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: { seconds: '1' } });
    } finally {
      await app.database.db.schema.alterTable('occurrences_away').renameTo('occurrences').execute();
    }
  });

  it('shuts down with the HTTP server: an export in flight is committed and answered, later ones are refused', async () => {
    nextWindow();
    const sample = await recordSampleTrace('grpc-shutdown');
    const exporter = grpcExporter(address);
    const inFlight = exportSpans(exporter, sample.spans);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await app.close();
    expect((await inFlight).code).toBe(ExportResultCode.SUCCESS);
    const after = await callExport(address, Buffer.alloc(0), { key });
    expect(after.error?.code).toBe(GrpcStatus.UNAVAILABLE);
    // Reopened on the same store, the trace is there.
    app = await buildTestApp(database(), { SERVICE_API_KEY: key });
    session = await firstAdminSession(app);
    await expectSampleTraceStored(app, session, sample);
  });
});

describe('OTLP/gRPC ports and TLS', () => {
  let database: TestDatabase;
  let dataDir: string;
  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    dataDir = mkdtempSync(join(tmpdir(), 'otlp-grpc-tls-'));
  });
  afterAll(async () => {
    rmSync(dataDir, { recursive: true, force: true });
    await database.dispose();
  });

  it('serves TLS when a certificate and key are configured', async () => {
    const cert = join(dataDir, 'cert.pem');
    const privateKey = join(dataDir, 'key.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', privateKey, '-out', cert, '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'], { stdio: 'ignore' });
    const port = await freePort();
    const app = await buildTestApp(database, { SERVICE_API_KEY: key, OTLP_GRPC_PORT: String(port), OTLP_GRPC_TLS_CERT_FILE: cert, OTLP_GRPC_TLS_KEY_FILE: privateKey });
    try {
      await app.ready();
      const secure = await callExport(`localhost:${port}`, Buffer.alloc(0), { key, credentials: credentials.createSsl(readFileSync(cert)) });
      expect(secure).toEqual({ response: Buffer.alloc(0) });
      const plaintext = await callExport(`localhost:${port}`, Buffer.alloc(0), { key });
      expect(plaintext.error?.code).toBe(GrpcStatus.UNAVAILABLE);
    } finally {
      await app.close();
    }
  });

  it('refuses a certificate without its key', async () => {
    await expect(buildTestApp(database, { OTLP_GRPC_PORT: String(await freePort()), OTLP_GRPC_TLS_CERT_FILE: '/nonexistent.pem' })).rejects.toThrow(/set both for TLS, or neither/);
  });

  it('does not start when a port set in OTLP_GRPC_PORT is taken, naming the variable', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as net.AddressInfo).port;
    const app = await buildTestApp(database, { OTLP_GRPC_PORT: String(port) });
    try {
      await expect(app.ready()).rejects.toThrow(`OTLP/gRPC cannot listen on 127.0.0.1:${port} (OTLP_GRPC_PORT)`);
    } finally {
      await app.close().catch(() => undefined);
      holder.close();
    }
  });

  it('starts without gRPC, HTTP serving, when OTLP_GRPC_PORT is unset and 4317 is taken', async () => {
    const holder = net.createServer();
    // Whoever holds 4317 (this test or another process), the service must still start.
    await new Promise<void>((resolve) => {
      holder.once('error', () => resolve());
      holder.listen(4317, '127.0.0.1', resolve);
    });
    // An empty value is unset: the default port, taken leniently.
    const app = await buildTestApp(database, { OTLP_GRPC_PORT: '', SERVICE_API_KEY: key, LOG_LEVEL: 'fatal' });
    try {
      await app.ready();
      const response = await app.inject({ method: 'POST', url: '/v1/traces', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, payload: '{}' });
      expect(response.statusCode).toBe(200);
    } finally {
      await app.close();
      holder.close();
    }
  });
});

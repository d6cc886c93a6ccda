import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { App } from '@playstack/server-kit';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { buildTestApp } from './support/test-app.js';

const legacyKey = 'otlp-test-key-0123456789';

describeEachDatabase('POST /v1/traces (OTLP/HTTP JSON)', (database) => {
  let app: App;
  let baseUrl: string;
  beforeAll(async () => {
    app = await buildTestApp(database(), { SERVICE_API_KEY: legacyKey });
    baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await app.close();
  });

  it('stores spans the OpenTelemetry JS SDK exports, unchanged, as occurrences', async () => {
    const exporter = new OTLPTraceExporter({ url: `${baseUrl}/v1/traces`, headers: { Authorization: `Bearer ${legacyKey}` } });
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({
        'service.name': 'checkout',
        'deployment.environment.name': 'staging',
        'service.version': '2.1.0',
        'service.instance.id': 'checkout-1',
      }),
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const tracer = provider.getTracer('otlp-test');
    const server = tracer.startSpan('POST /orders', {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': 'POST', 'http.route': '/orders', 'http.response.status_code': 201, 'tenant.id': 'acme', 'order.items': 3 },
    });
    const query = tracer.startSpan(
      'insert order',
      {
        kind: SpanKind.CLIENT,
        attributes: { 'db.system.name': 'postgresql', 'db.query.text': 'INSERT INTO orders (id) VALUES (7)', 'server.address': 'db.internal', 'server.port': 5432 },
      },
      trace.setSpan(context.active(), server),
    );
    query.recordException(new TypeError('duplicate key'));
    query.setStatus({ code: SpanStatusCode.ERROR, message: 'duplicate key' });
    query.end();
    server.end();
    await provider.forceFlush();
    await provider.shutdown();

    const rows = await app.database.db.selectFrom('occurrences').selectAll().where('service', '=', 'checkout').orderBy('operation').execute();
    expect(rows).toHaveLength(2);
    const [post, insert] = rows;
    expect(post).toMatchObject({
      trace_id: server.spanContext().traceId,
      span_id: server.spanContext().spanId,
      parent_span_id: null,
      environment: 'staging',
      service_version: '2.1.0',
      instance: 'checkout-1',
      kind: 'server',
      status: 'ok',
      tenant_id: 'acme',
      http_method: 'POST',
      http_route: '/orders',
      http_status_code: 201,
    });
    expect(JSON.parse(post!.attributes!)).toEqual({ 'order.items': 3 });
    expect(insert).toMatchObject({
      span_id: query.spanContext().spanId,
      parent_span_id: server.spanContext().spanId,
      kind: 'client',
      status: 'error',
      db_system: 'postgresql',
      db_statement: 'INSERT INTO orders (id) VALUES (7)',
      db_operation: 'INSERT',
      peer_address: 'db.internal:5432',
      error_type: 'TypeError',
      error_message: 'duplicate key',
    });
    expect(insert!.error_stack).toContain('TypeError: duplicate key');
    expect(insert!.duration_ms).toBeGreaterThanOrEqual(0);
    expect(Math.abs(Number(post!.started_at) - Date.now())).toBeLessThan(60_000);
  });

  const otlpBody = (spans: unknown[]) => ({
    resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'raw-otlp' } }] }, scopeSpans: [{ scope: { name: 't' }, spans }] }],
  });
  const span = (overrides: Record<string, unknown> = {}) => {
    const start = BigInt(Date.now()) * 1_000_000n;
    return { traceId: '5b8efff798038103d269b633813fc60c', spanId: 'eee19b7ec3c1b174', name: 'work', kind: 1, startTimeUnixNano: String(start), endTimeUnixNano: String(start + 2_500_000n), ...overrides };
  };
  const postOtlp = (body: unknown, headers: Record<string, string> = {}) =>
    app.inject({
      method: 'POST',
      url: '/v1/traces',
      headers: { authorization: `Bearer ${legacyKey}`, 'content-type': 'application/json', ...headers },
      payload: Buffer.isBuffer(body) ? body : JSON.stringify(body),
    });

  it('reports refused spans as a partial success and keeps the others', async () => {
    const response = await postOtlp(otlpBody([span({ spanId: 'aaaaaaaaaaaaaaa1' }), span({ traceId: 'not-hex' }), span({ spanId: 'aaaaaaaaaaaaaaa2', name: '' })]));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ partialSuccess: { rejectedSpans: 2, errorMessage: expect.stringMatching(/^span 1: occurrence.traceId .*; span 2: occurrence.operation/) } });
    const stored = await app.database.db.selectFrom('occurrences').select(['span_id', 'duration_ms', 'environment']).where('service', '=', 'raw-otlp').execute();
    expect(stored).toEqual([{ span_id: 'aaaaaaaaaaaaaaa1', duration_ms: 2.5, environment: 'default' }]);
  });

  it('accepts gzip and answers an empty response when every span is kept', async () => {
    const response = await postOtlp(gzipSync(JSON.stringify(otlpBody([span({ spanId: 'aaaaaaaaaaaaaaa3' })]))), { 'content-encoding': 'gzip' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({});
  });

  it('needs an ingestion key and refuses protobuf', async () => {
    expect((await postOtlp(otlpBody([]), { authorization: 'Bearer nope-nope-nope' })).statusCode).toBe(401);
    const protobuf = await postOtlp(Buffer.from([0x0a, 0x00]), { 'content-type': 'application/x-protobuf' });
    expect(protobuf.statusCode).toBe(415);
    expect((await postOtlp({ resourceSpans: 'x' })).json().error.code).toBe('invalid-request');
  });
});

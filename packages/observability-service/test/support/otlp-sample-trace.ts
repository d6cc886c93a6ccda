import { expect } from 'vitest';
import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import type { ExportResult } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { App } from '@playstack/server-kit';
import { asBrowser, type BrowserSession } from './browser-session.js';

/**
 * A trace as an instrumented service produces it: a server span with a child database call that
 * fails (exception event, error status) and records another event, linked to a span of another
 * trace (the message that triggered it), with attributes of every kind.
 */
export interface SampleTrace {
  service: string;
  producer: ReadableSpan;
  server: ReadableSpan;
  query: ReadableSpan;
  /** Every span, in the order they ended. */
  spans: ReadableSpan[];
}

/** Records the sample trace under the service name (the spans are not exported yet). */
export async function recordSampleTrace(service: string): Promise<SampleTrace> {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({
      'service.name': service,
      'deployment.environment.name': 'staging',
      'service.version': '2.1.0',
      'service.instance.id': `${service}-1`,
      'host.name': 'web-3',
    }),
    spanProcessors: [new SimpleSpanProcessor(memory)],
  });
  const tracer = provider.getTracer('otlp-test', '1.0.0');
  const producer = tracer.startSpan('enqueue order', { kind: SpanKind.PRODUCER, attributes: { 'messaging.system': 'kafka' } });
  producer.end();
  const server = tracer.startSpan('POST /orders', {
    kind: SpanKind.SERVER,
    attributes: {
      'http.request.method': 'POST',
      'http.route': '/orders',
      'http.response.status_code': 201,
      'tenant.id': 'acme',
      'order.items': 3,
      'order.express': true,
      'order.tags': ['gift', 'rush'],
    },
    links: [{ context: producer.spanContext(), attributes: { 'link.reason': 'triggered by' } }],
  });
  const query = tracer.startSpan(
    'INSERT orders',
    {
      kind: SpanKind.CLIENT,
      attributes: { 'db.system': 'postgresql', 'db.statement': 'INSERT INTO orders (id) VALUES (7)', 'net.peer.name': 'db.internal', 'net.peer.port': 5432 },
    },
    trace.setSpan(context.active(), server),
  );
  query.addEvent('retry', { 'retry.attempt': 2 });
  query.recordException(new TypeError('duplicate key'));
  query.setStatus({ code: SpanStatusCode.ERROR, message: 'duplicate key' });
  query.end();
  server.end();
  await provider.forceFlush();
  const spans = memory.getFinishedSpans();
  await provider.shutdown();
  const byName = (name: string) => spans.find((span) => span.name === name)!;
  return { service, producer: byName('enqueue order'), server: byName('POST /orders'), query: byName('INSERT orders'), spans };
}

/** What the exporter's own `export` reports for these spans (success, or the error it gave up with). */
export function exportSpans(exporter: SpanExporter, spans: ReadableSpan[]): Promise<ExportResult> {
  return new Promise((resolve) => exporter.export(spans, resolve));
}

const nanos = ([seconds, fraction]: [number, number]) => BigInt(seconds) * 1_000_000_000n + BigInt(fraction);
const startMs = (span: ReadableSpan) => Number(nanos(span.startTime) / 1_000_000n);
const durationMs = (span: ReadableSpan) => Number(nanos(span.endTime) - nanos(span.startTime)) / 1e6;

/** Reads the sample trace back through the read API and checks every field the spans carried. */
export async function expectSampleTraceStored(app: App, session: BrowserSession, sample: SampleTrace): Promise<void> {
  const { server, query, producer } = sample;
  const response = await asBrowser(app, session, { url: `/api/v1/traces/${server.spanContext().traceId}` });
  expect(response.statusCode, response.body).toBe(200);
  const stored = response.json() as { services: string[]; spans: Array<Record<string, unknown>> };
  expect(stored.services).toEqual([sample.service]);
  expect(stored.spans.map((span) => span.operation)).toEqual(['POST /orders', 'INSERT orders']);
  const [root, child] = stored.spans as [Record<string, unknown>, Record<string, unknown>];
  const resource = {
    service: sample.service,
    environment: 'staging',
    serviceVersion: '2.1.0',
    instance: `${sample.service}-1`,
    resourceAttributes: { 'host.name': 'web-3' },
  };
  expect(root).toMatchObject({
    ...resource,
    traceId: server.spanContext().traceId,
    spanId: server.spanContext().spanId,
    parentSpanId: null,
    kind: 'server',
    status: 'ok',
    startedAt: new Date(startMs(server)).toISOString(),
    tenantId: 'acme',
    http: { method: 'POST', route: '/orders', statusCode: 201 },
    db: null,
    peer: null,
    error: null,
    attributes: { 'order.items': 3, 'order.express': true, 'order.tags': '["gift","rush"]' },
    events: null,
    links: [{ traceId: producer.spanContext().traceId, spanId: producer.spanContext().spanId, traceState: null, attributes: { 'link.reason': 'triggered by' } }],
    depth: 0,
  });
  expect(root.durationMs).toBeCloseTo(durationMs(server), 6);
  expect(child).toMatchObject({
    ...resource,
    spanId: query.spanContext().spanId,
    parentSpanId: server.spanContext().spanId,
    kind: 'client',
    status: 'error',
    startedAt: new Date(startMs(query)).toISOString(),
    db: { system: 'postgresql', statement: 'INSERT INTO orders (id) VALUES (7)', operation: 'INSERT' },
    peer: { service: null, address: 'db.internal:5432' },
    error: { type: 'TypeError', message: 'duplicate key', stack: expect.stringContaining('TypeError: duplicate key') },
    attributes: null,
    links: null,
    depth: 1,
  });
  expect(child.durationMs).toBeCloseTo(durationMs(query), 6);
  const events = child.events as Array<{ name: string; time: string; offsetMs: number; attributes: Record<string, unknown> | null }>;
  expect(events.map((event) => event.name)).toEqual(['retry', 'exception']);
  expect(events[0]!.attributes).toEqual({ 'retry.attempt': 2 });
  expect(events[1]!.attributes).toMatchObject({ 'exception.type': 'TypeError', 'exception.message': 'duplicate key' });
  for (const [index, event] of events.entries()) {
    // Event times keep their fraction of a millisecond (for offsets); the timestamp is that time, to the millisecond.
    const eventMs = Number(nanos(query.events[index]!.time)) / 1e6;
    expect(Math.abs(Date.parse(event.time) - eventMs)).toBeLessThanOrEqual(1);
    expect(event.offsetMs).toBeGreaterThanOrEqual(0);
  }
}

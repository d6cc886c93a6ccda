import { expect } from 'vitest';
import { context, trace, type SpanContext } from '@opentelemetry/api';
import { SeverityNumber } from '@opentelemetry/api-logs';
import type { ExportResult } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor, type LogRecordExporter, type ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import type { App } from '@playstack/server-kit';
import { asBrowser, type BrowserSession } from './browser-session.js';

/**
 * Log records as an instrumented service emits them through @opentelemetry/sdk-logs: inside a
 * span (trace and span ids), a warning with a string body, an error with a structured body and
 * attributes of every kind, and an event, from a named and versioned logger.
 */
export interface SampleLogs {
  service: string;
  traceId: string;
  spanId: string;
  /** In the order they were emitted. */
  records: ReadableLogRecord[];
}

/** Emits the sample records under the service name (they are not exported yet), inside `parent` or a span of a new trace. */
export async function recordSampleLogs(service: string, parent?: SpanContext): Promise<SampleLogs> {
  const memory = new InMemoryLogRecordExporter();
  const resource = resourceFromAttributes({
    'service.name': service,
    'deployment.environment.name': 'staging',
    'service.version': '2.1.0',
    'service.instance.id': `${service}-1`,
    'host.name': 'web-3',
    'tenant.id': 'acme',
  });
  const provider = new LoggerProvider({ resource, processors: [new SimpleLogRecordProcessor({ exporter: memory })] });
  const tracerProvider = new BasicTracerProvider({ resource });
  const span = parent ? trace.wrapSpanContext(parent) : tracerProvider.getTracer('otlp-test').startSpan('POST /orders');
  const inSpan = trace.setSpan(context.active(), span);
  const logger = provider.getLogger('checkout.orders', '1.4.0');
  logger.emit({ context: inSpan, severityNumber: SeverityNumber.WARN, severityText: 'WARN', body: 'payment gateway slow: retrying in 250 ms', attributes: { 'retry.attempt': 2 } });
  logger.emit({
    context: inSpan,
    severityNumber: SeverityNumber.ERROR2,
    severityText: 'error',
    body: { message: 'order rejected', reasons: ['card declined', 'fraud check'], amount: 42.5, final: true },
    attributes: { 'order.items': 3, 'order.express': true, 'order.tags': ['gift', 'rush'], 'tenant.id': 'globex', 'user.name': 'ünïcode ✓' },
  });
  logger.emit({ context: inSpan, eventName: 'order.placed', severityNumber: SeverityNumber.INFO, body: 'order placed' });
  span.end();
  await provider.forceFlush();
  const records = [...memory.getFinishedLogRecords()];
  await provider.shutdown();
  await tracerProvider.shutdown();
  return { service, traceId: span.spanContext().traceId, spanId: span.spanContext().spanId, records };
}

/** What the exporter's own `export` reports for these records. */
export function exportLogs(exporter: LogRecordExporter, records: ReadableLogRecord[]): Promise<ExportResult> {
  return new Promise((resolve) => exporter.export(records, resolve));
}

const nanos = ([seconds, fraction]: [number, number]) => BigInt(seconds) * 1_000_000_000n + BigInt(fraction);

/** Reads the sample records back through the read API (by trace, and the trace's logs) and checks every field. */
export async function expectSampleLogsStored(app: App, session: BrowserSession, sample: SampleLogs): Promise<void> {
  const response = await asBrowser(app, session, { url: `/api/v1/traces/${sample.traceId}/logs` });
  expect(response.statusCode, response.body).toBe(200);
  const stored = response.json() as { items: Array<Record<string, unknown>>; truncated: boolean };
  expect(stored.truncated).toBe(false);
  expect(stored.items).toHaveLength(sample.records.length);
  const resource = {
    service: sample.service,
    environment: 'staging',
    serviceVersion: '2.1.0',
    instance: `${sample.service}-1`,
    resourceAttributes: { 'host.name': 'web-3', 'tenant.id': 'acme' },
    scope: { name: 'checkout.orders', version: '1.4.0' },
    traceId: sample.traceId,
    spanId: sample.spanId,
    traceFlags: 1,
  };
  // Earliest first; records emitted in the same millisecond keep their order.
  for (const [index, record] of sample.records.entries()) {
    const item = stored.items[index]!;
    const time = nanos(record.hrTime);
    expect(item).toMatchObject({
      ...resource,
      time: new Date(Number(time / 1_000_000n)).toISOString(),
      timeUnixNano: time.toString(),
      observedAt: new Date(Number(nanos(record.hrTimeObserved) / 1_000_000n)).toISOString(),
      severityNumber: record.severityNumber ?? 0,
      severityText: record.severityText ?? null,
      body: record.body,
      eventName: record.eventName ?? null,
    });
  }
  const [warning, error, event] = stored.items as [Record<string, unknown>, Record<string, unknown>, Record<string, unknown>];
  expect(warning).toMatchObject({ severity: 'warn', tenantId: 'acme', attributes: { 'retry.attempt': 2 } });
  expect(error).toMatchObject({
    severity: 'error',
    // The record's own tenant wins over its resource's.
    tenantId: 'globex',
    attributes: { 'order.items': 3, 'order.express': true, 'order.tags': '["gift","rush"]', 'user.name': 'ünïcode ✓' },
  });
  expect(event).toMatchObject({ severity: 'info', eventName: 'order.placed', attributes: null });
  expect(Date.parse(String(error.receivedAt))).toBeGreaterThanOrEqual(Date.parse(String(error.observedAt)) - 1);
}

import { gzipSync } from 'node:zlib';
import { expect, it } from 'vitest';
import { diag, DiagLogLevel } from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import { CompressionAlgorithm } from '@opentelemetry/otlp-exporter-base';
import { OTLPTraceExporter as HttpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as HttpProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { ManualClock } from '@playstack/server-kit';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import type { OtlpEncoding } from '../src/otlp/otlp-encoding.js';
import { asBrowser } from './support/browser-session.js';
import { useListeningService } from './support/listening-service.js';
import { expectSampleTraceStored, exportSpans, recordSampleTrace } from './support/otlp-sample-trace.js';
import { decodeBody, encodeTraceRequest, jsonSpan, jsonTraceRequest, statusType, traceResponseType } from './support/otlp-requests.js';
import { useRecordingProxies } from './support/recording-proxy.js';

const key = 'otlp-test-key-0123456789';
const bodyLimitBytes = 64 * 1024;
const contentType: Record<OtlpEncoding, string> = { protobuf: 'application/x-protobuf', json: 'application/json' };
type ExporterFactory = (url: string, options?: { key?: string; gzip?: boolean }) => SpanExporter;
const exporters: Record<OtlpEncoding, ExporterFactory> = {
  json: (url, options = {}) =>
    new HttpJsonExporter({ url: `${url}/v1/traces`, headers: { Authorization: `Bearer ${options.key ?? key}` }, compression: options.gzip ? CompressionAlgorithm.GZIP : CompressionAlgorithm.NONE }),
  protobuf: (url, options = {}) =>
    new HttpProtoExporter({ url: `${url}/v1/traces`, headers: { Authorization: `Bearer ${options.key ?? key}` }, compression: options.gzip ? CompressionAlgorithm.GZIP : CompressionAlgorithm.NONE }),
};

/** The span with another trace id: the way a buggy SDK or a hand-built request sends a bad id. */
function withTraceId(span: ReadableSpan, traceId: string): ReadableSpan {
  return Object.create(span, { spanContext: { value: () => ({ ...span.spanContext(), traceId }) } }) as ReadableSpan;
}

/** Collects what the exporters log through the OpenTelemetry diagnostics (partial successes are logged there). */
const diagnostics: string[] = [];
diag.setLogger(
  { error: (...args) => diagnostics.push(args.join(' ')), warn: (...args) => diagnostics.push(args.join(' ')), info: () => {}, debug: () => {}, verbose: () => {} },
  DiagLogLevel.WARN,
);

describeEachDatabase('OTLP/HTTP answers as the specification says', (database) => {
  const service = useListeningService(database, { SERVICE_API_KEY: key, OBSERVABILITY_BODY_LIMIT_BYTES: String(bodyLimitBytes) });
  const startProxy = useRecordingProxies();

  const post = (body: Buffer, headers: Record<string, string>) =>
    service.app.inject({ method: 'POST', url: '/v1/traces', headers: { authorization: `Bearer ${key}`, ...headers }, payload: body });

  for (const encoding of ['json', 'protobuf'] as const) {
    it(`${encoding}: one span with a bad trace id among good ones is a partial success the exporter logs; the good ones are stored`, async () => {
      const proxy = await startProxy(service.baseUrl);
      const sample = await recordSampleTrace(`partial-${encoding}`);
      const [producer, query, server] = sample.spans as [ReadableSpan, ReadableSpan, ReadableSpan];
      diagnostics.length = 0;
      const result = await exportSpans(exporters[encoding](proxy.url), [producer, withTraceId(query, 'abcd'), server]);
      expect(result.code).toBe(ExportResultCode.SUCCESS);
      expect(proxy.exchanges.map((exchange) => exchange.status)).toEqual([200]);
      const [exchange] = proxy.exchanges;
      expect(exchange!.headers['content-type']).toContain(contentType[encoding]);
      expect(decodeBody(traceResponseType, exchange!.body, encoding)).toEqual({
        partialSuccess: { rejectedSpans: '1', errorMessage: expect.stringMatching(/^span 1: traceId must be 16 bytes \(32 hex characters in JSON\); it has 2$/) },
      });
      expect(diagnostics.join('\n')).toMatch(/partial success/i);
      const stored = await asBrowser(service.app, service.session, { url: `/api/v1/traces/${server.spanContext().traceId}` });
      expect(stored.json().spans.map((span: { operation: string }) => span.operation)).toEqual(['POST /orders']);
    });

    it(`${encoding}: an empty request is a success with an empty response`, async () => {
      const bodies = encoding === 'json' ? [Buffer.from('{}'), Buffer.from('{"resourceSpans":[]}')] : [Buffer.alloc(0), encodeTraceRequest({ resourceSpans: [] }, 'protobuf')];
      for (const body of bodies) {
        const response = await post(body, { 'content-type': contentType[encoding] });
        expect(response.statusCode).toBe(200);
        expect(response.headers['content-type']).toContain(contentType[encoding]);
        expect(response.rawPayload).toEqual(encoding === 'json' ? Buffer.from('{}') : Buffer.alloc(0));
      }
    });

    it(`${encoding}: an undecodable body is 400 with a google.rpc.Status in the same encoding, BadRequest and the error code in its details`, async () => {
      const garbage = encoding === 'json' ? Buffer.from('{"resourceSpans": [') : Buffer.from([0x0a, 0xff, 0xff, 0xff]);
      for (const body of [garbage, gzipSync(garbage)]) {
        const response = await post(body, { 'content-type': contentType[encoding], ...(body === garbage ? {} : { 'content-encoding': 'gzip' }) });
        expect(response.statusCode).toBe(400);
        expect(response.headers['content-type']).toContain(contentType[encoding]);
        const status = decodeBody(statusType, response.rawPayload, encoding);
        expect(status).toEqual({
          code: 3,
          message: expect.stringMatching(encoding === 'json' ? /^The body is not an OTLP\/JSON ExportTraceServiceRequest: / : /^The body is not a protobuf ExportTraceServiceRequest: /),
          details: [
            { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'invalid-request', domain: 'observability.playstack', metadata: { requestId: response.headers['x-request-id'] } },
            { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ description: status.message }] },
          ],
        });
      }
      const wrongShape = await post(Buffer.from('{"resourceSpans":"x"}'), { 'content-type': 'application/json' });
      expect(wrongShape.statusCode).toBe(400);
      expect(wrongShape.json().message).toMatch(/resourceSpans: array expected/);
    });

    it(`${encoding}: a wrong or missing key is 401 and the exporter gives up without retrying`, async () => {
      const proxy = await startProxy(service.baseUrl);
      const sample = await recordSampleTrace(`wrong-key-${encoding}`);
      const result = await exportSpans(exporters[encoding](proxy.url, { key: 'not-a-key-of-ours' }), sample.spans);
      expect(result.code).toBe(ExportResultCode.FAILED);
      expect(proxy.exchanges.map((exchange) => exchange.status)).toEqual([401]);
      const status = decodeBody(statusType, proxy.exchanges[0]!.body, encoding);
      expect(status).toMatchObject({ code: 16, message: 'The ingestion key is unknown or revoked.' });
      const missing = await service.app.inject({ method: 'POST', url: '/v1/traces', headers: { 'content-type': contentType[encoding] }, payload: encodeTraceRequest(jsonTraceRequest([jsonSpan()]), encoding) });
      expect(missing.statusCode).toBe(401);
      expect(decodeBody(statusType, missing.rawPayload, encoding)).toMatchObject({ code: 16, message: 'Ingestion needs Authorization: Bearer <ingestion key>.' });
    });

    it(`${encoding}: a body over the limit, on the wire or once decompressed, is 413 and the exporter does not retry it`, async () => {
      const proxy = await startProxy(service.baseUrl);
      const sample = await recordSampleTrace(`oversized-${encoding}`);
      // Spans whose attributes take the body past the limit (compressible, so gzip is small on the wire).
      const big = Array.from({ length: 80 }, () => Object.create(sample.server, { attributes: { value: { filler: 'x'.repeat(1000) } } }) as ReadableSpan);
      for (const gzip of [false, true]) {
        proxy.exchanges.length = 0;
        const result = await exportSpans(exporters[encoding](proxy.url, { gzip }), big);
        expect(result.code).toBe(ExportResultCode.FAILED);
        expect(proxy.exchanges.map((exchange) => exchange.status)).toEqual([413]);
        if (gzip) expect(proxy.exchanges[0]!.requestBytes).toBeLessThan(bodyLimitBytes);
        expect(decodeBody(statusType, proxy.exchanges[0]!.body, encoding)).toMatchObject({ code: 8, message: expect.stringMatching(/larger than/) });
      }
    });
  }

  it('an unsupported Content-Type is 415 with a JSON Status naming the two encodings', async () => {
    const response = await post(Buffer.from('x'), { 'content-type': 'text/csv' });
    expect(response.statusCode).toBe(415);
    expect(response.json()).toMatchObject({ code: 3, message: 'OTLP/HTTP bodies are application/x-protobuf or application/json.' });
  });
});

describeEachDatabase('OTLP/HTTP throttling and storage failures are retryable, and exporters retry them', (database) => {
  const clock = new ManualClock(Date.now());
  const service = useListeningService(database, { SERVICE_API_KEY: key, INGEST_RATE_LIMIT_PER_SECOND: '1' }, { clock });
  const startProxy = useRecordingProxies();

  for (const encoding of ['json', 'protobuf'] as const) {
    it(`${encoding}: over the key's rate is 429 with Retry-After and RetryInfo; the exporter waits, retries and its trace is stored`, async () => {
      clock.advance(1_000);
      // The proxy lets the second passing by once the exporter has been told to wait.
      const proxy = await startProxy(service.baseUrl, (exchange) => {
        if (exchange.status === 429) clock.advance(1_000);
      });
      const first = await service.app.inject({ method: 'POST', url: '/v1/traces', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, payload: '{}' });
      expect(first.statusCode).toBe(200);
      const sample = await recordSampleTrace(`throttled-${encoding}`);
      const result = await exportSpans(exporters[encoding](proxy.url), sample.spans);
      expect(result.code).toBe(ExportResultCode.SUCCESS);
      expect(proxy.exchanges.map((exchange) => exchange.status)).toEqual([429, 200]);
      const throttled = proxy.exchanges[0]!;
      expect(throttled.headers['retry-after']).toBe('1');
      const status = decodeBody(statusType, throttled.body, encoding);
      expect(status).toMatchObject({ code: 8, message: expect.stringMatching(/faster than its configured rate/) });
      expect(status.details).toContainEqual({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: encoding === 'json' ? '1s' : { seconds: '1' } });
      await expectSampleTraceStored(service.app, service.session, sample);
    });
  }

  it('storage failing is 503 with Retry-After; the exporter retries and succeeds once storage is back', async () => {
    clock.advance(1_000);
    await service.app.database.db.schema.alterTable('occurrences').renameTo('occurrences_away').execute();
    let restored = false;
    const proxy = await startProxy(service.baseUrl, async (exchange) => {
      clock.advance(1_000);
      if (exchange.status === 503 && !restored) {
        restored = true;
        await service.app.database.db.schema.alterTable('occurrences_away').renameTo('occurrences').execute();
      }
    });
    const sample = await recordSampleTrace('storage-outage');
    const result = await exportSpans(exporters.protobuf(proxy.url), sample.spans);
    expect(result.code).toBe(ExportResultCode.SUCCESS);
    expect(proxy.exchanges.map((exchange) => exchange.status)).toEqual([503, 200]);
    expect(proxy.exchanges[0]!.headers['retry-after']).toBe('1');
    expect(decodeBody(statusType, proxy.exchanges[0]!.body, 'protobuf')).toMatchObject({ code: 14, message: expect.stringMatching(/could not be stored; nothing was kept/) });
    await expectSampleTraceStored(service.app, service.session, sample);
  });
});

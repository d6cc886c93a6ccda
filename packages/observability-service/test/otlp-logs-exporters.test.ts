import { afterAll, beforeAll, expect, it } from 'vitest';
import { ExportResultCode } from '@opentelemetry/core';
import { CompressionAlgorithm } from '@opentelemetry/otlp-exporter-base';
import { OTLPLogExporter as HttpJsonExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as HttpProtoExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { OTLPLogExporter as GrpcExporter } from '@opentelemetry/exporter-logs-otlp-grpc';
import type { LogRecordExporter } from '@opentelemetry/sdk-logs';
import { Metadata } from '@grpc/grpc-js';
import type { App } from '@playstack/server-kit';
import { describeEachDatabase, freePort } from '@playstack/server-kit/testing';
import { asBrowser, setUpFirstAdmin, type BrowserSession } from './support/browser-session.js';
import { expectSampleLogsStored, exportLogs, recordSampleLogs } from './support/otlp-sample-logs.js';
import { buildTestApp } from './support/test-app.js';
import { encodeTraceRequest, jsonLogRecord, jsonLogsRequest, logsRequestType } from './support/otlp-requests.js';

const legacyKey = 'otlp-logs-test-key-0123456789';
const headers = { Authorization: `Bearer ${legacyKey}` };

describeEachDatabase('the OpenTelemetry log exporters send unchanged', (database) => {
  let app: App;
  let baseUrl: string;
  let grpcUrl: string;
  let session: BrowserSession;
  beforeAll(async () => {
    const grpcPort = await freePort();
    grpcUrl = `http://127.0.0.1:${grpcPort}`;
    app = await buildTestApp(database(), { SERVICE_API_KEY: legacyKey, OTLP_GRPC_PORT: String(grpcPort), INGEST_MAX_LOG_RECORDS: '50' });
    baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });
    session = await setUpFirstAdmin(app);
  });
  afterAll(async () => {
    await app.close();
  });

  const metadata = () => {
    const value = new Metadata();
    value.set('authorization', `Bearer ${legacyKey}`);
    return value;
  };
  const exporters: Record<string, () => LogRecordExporter> = {
    'OTLP/gRPC (exporter-logs-otlp-grpc)': () => new GrpcExporter({ url: grpcUrl, metadata: metadata() }),
    'OTLP/gRPC, gzip': () => new GrpcExporter({ url: grpcUrl, metadata: metadata(), compression: CompressionAlgorithm.GZIP }),
    'OTLP/HTTP JSON (exporter-logs-otlp-http)': () => new HttpJsonExporter({ url: `${baseUrl}/v1/logs`, headers }),
    'OTLP/HTTP JSON, gzip': () => new HttpJsonExporter({ url: `${baseUrl}/v1/logs`, headers, compression: CompressionAlgorithm.GZIP }),
    'OTLP/HTTP protobuf (exporter-logs-otlp-proto)': () => new HttpProtoExporter({ url: `${baseUrl}/v1/logs`, headers }),
    'OTLP/HTTP protobuf, gzip': () => new HttpProtoExporter({ url: `${baseUrl}/v1/logs`, headers, compression: CompressionAlgorithm.GZIP }),
  };

  for (const [name, createExporter] of Object.entries(exporters)) {
    it(`${name}: records with string and structured bodies, severities, an event, a scope and attributes read back field for field`, async () => {
      const sample = await recordSampleLogs(`checkout-${name.replace(/[^a-z]+/gi, '-').toLowerCase()}`);
      const exporter = createExporter();
      const result = await exportLogs(exporter, sample.records);
      await exporter.shutdown();
      expect(result.error).toBeUndefined();
      expect(result.code).toBe(ExportResultCode.SUCCESS);
      await expectSampleLogsStored(app, session, sample);
    });
  }

  const post = (body: Record<string, unknown>, encoding: 'json' | 'protobuf') =>
    fetch(`${baseUrl}/v1/logs`, {
      method: 'POST',
      headers: { ...headers, 'content-type': encoding === 'json' ? 'application/json' : 'application/x-protobuf' },
      body: encodeTraceRequest(body, encoding, logsRequestType),
    });

  it('keeps the valid records of a request and reports the others as a partial success (rejectedLogRecords)', async () => {
    const traceId = 'ab'.repeat(16);
    const response = await post(jsonLogsRequest([jsonLogRecord({ traceId, body: { stringValue: 'kept' } }), jsonLogRecord({ traceId: 'abcd' }), jsonLogRecord({ traceId, spanId: 'ff' })]), 'json');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      partialSuccess: { rejectedLogRecords: '2', errorMessage: expect.stringMatching(/^log record 1: traceId must be empty or 16 bytes .*; log record 2: spanId must be empty or 8 bytes/) },
    });
    const stored = await asBrowser(app, session, { url: `/api/v1/traces/${traceId}/logs` });
    expect(stored.json().items.map((item: { body: unknown }) => item.body)).toEqual(['kept']);
  });

  it('refuses a request with more records than INGEST_MAX_LOG_RECORDS with 413, storing none', async () => {
    const traceId = 'cd'.repeat(16);
    const response = await post(jsonLogsRequest(Array.from({ length: 51 }, () => jsonLogRecord({ traceId }))), 'protobuf');
    expect(response.status).toBe(413);
    const stored = await asBrowser(app, session, { url: `/api/v1/traces/${traceId}/logs` });
    expect(stored.json().items).toEqual([]);
  });
});

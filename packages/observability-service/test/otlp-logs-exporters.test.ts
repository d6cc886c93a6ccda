import { expect, it } from 'vitest';
import { OTLPLogExporter as HttpJsonExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as HttpProtoExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { OTLPLogExporter as GrpcExporter } from '@opentelemetry/exporter-logs-otlp-grpc';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { asBrowser } from './support/browser-session.js';
import { expectExportSucceeds, exporterVariants, sampleServiceName, useOtlpTarget } from './support/otlp-exporter-harness.js';
import { expectSampleLogsStored, exportLogs, recordSampleLogs } from './support/otlp-sample-logs.js';
import { encodeTraceRequest, jsonLogRecord, jsonLogsRequest, logsRequestType } from './support/otlp-requests.js';

const legacyKey = 'otlp-logs-test-key-0123456789';
const headers = { Authorization: `Bearer ${legacyKey}` };

describeEachDatabase('the OpenTelemetry log exporters send unchanged', (database) => {
  const target = useOtlpTarget(database, legacyKey, { INGEST_MAX_LOG_RECORDS: '50' });
  const exporters = exporterVariants(target, legacyKey, {
    signal: 'logs',
    path: '/v1/logs',
    grpc: GrpcExporter,
    httpJson: HttpJsonExporter,
    httpProto: HttpProtoExporter,
  });

  for (const [name, createExporter] of Object.entries(exporters)) {
    it(`${name}: records with string and structured bodies, severities, an event, a scope and attributes read back field for field`, async () => {
      const sample = await recordSampleLogs(sampleServiceName(name));
      await expectExportSucceeds(createExporter(), (exporter) => exportLogs(exporter, sample.records));
      await expectSampleLogsStored(target.app, target.session, sample);
    });
  }

  const post = (body: Record<string, unknown>, encoding: 'json' | 'protobuf') =>
    fetch(`${target.baseUrl}/v1/logs`, {
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
    const stored = await asBrowser(target.app, target.session, { url: `/api/v1/traces/${traceId}/logs` });
    expect(stored.json().items.map((item: { body: unknown }) => item.body)).toEqual(['kept']);
  });

  it('refuses a request with more records than INGEST_MAX_LOG_RECORDS with 413, storing none', async () => {
    const traceId = 'cd'.repeat(16);
    const response = await post(jsonLogsRequest(Array.from({ length: 51 }, () => jsonLogRecord({ traceId }))), 'protobuf');
    expect(response.status).toBe(413);
    const stored = await asBrowser(target.app, target.session, { url: `/api/v1/traces/${traceId}/logs` });
    expect(stored.json().items).toEqual([]);
  });
});

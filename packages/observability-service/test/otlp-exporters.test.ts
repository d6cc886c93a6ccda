import { afterAll, beforeAll, expect, it } from 'vitest';
import { ExportResultCode } from '@opentelemetry/core';
import { CompressionAlgorithm } from '@opentelemetry/otlp-exporter-base';
import { OTLPTraceExporter as HttpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as HttpProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { App } from '@playstack/server-kit';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { setUpFirstAdmin, type BrowserSession } from './support/browser-session.js';
import { expectSampleTraceStored, exportSpans, recordSampleTrace } from './support/otlp-sample-trace.js';
import { buildTestApp } from './support/test-app.js';

const legacyKey = 'otlp-test-key-0123456789';
const headers = { Authorization: `Bearer ${legacyKey}` };

describeEachDatabase('the OpenTelemetry exporters send unchanged', (database) => {
  let app: App;
  let baseUrl: string;
  let session: BrowserSession;
  beforeAll(async () => {
    app = await buildTestApp(database(), { SERVICE_API_KEY: legacyKey });
    baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });
    session = await setUpFirstAdmin(app);
  });
  afterAll(async () => {
    await app.close();
  });

  const exporters: Record<string, () => SpanExporter> = {
    'OTLP/HTTP JSON (exporter-trace-otlp-http)': () => new HttpJsonExporter({ url: `${baseUrl}/v1/traces`, headers }),
    'OTLP/HTTP JSON, gzip': () => new HttpJsonExporter({ url: `${baseUrl}/v1/traces`, headers, compression: CompressionAlgorithm.GZIP }),
    'OTLP/HTTP protobuf (exporter-trace-otlp-proto)': () => new HttpProtoExporter({ url: `${baseUrl}/v1/traces`, headers }),
    'OTLP/HTTP protobuf, gzip': () => new HttpProtoExporter({ url: `${baseUrl}/v1/traces`, headers, compression: CompressionAlgorithm.GZIP }),
  };

  for (const [name, createExporter] of Object.entries(exporters)) {
    it(`${name}: a trace with a parent, a child, an exception, an event, a link and attributes reads back field for field`, async () => {
      const sample = await recordSampleTrace(`checkout-${name.replace(/[^a-z]+/gi, '-').toLowerCase()}`);
      const exporter = createExporter();
      const result = await exportSpans(exporter, sample.spans);
      await exporter.shutdown();
      expect(result.error).toBeUndefined();
      expect(result.code).toBe(ExportResultCode.SUCCESS);
      await expectSampleTraceStored(app, session, sample);
    });
  }
});

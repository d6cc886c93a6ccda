import { afterAll, beforeAll, expect, it } from 'vitest';
import { ExportResultCode } from '@opentelemetry/core';
import { CompressionAlgorithm } from '@opentelemetry/otlp-exporter-base';
import { OTLPTraceExporter as HttpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as HttpProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPTraceExporter as GrpcExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { Metadata } from '@grpc/grpc-js';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { App } from '@playstack/server-kit';
import { describeEachDatabase, freePort } from '@playstack/server-kit/testing';
import { setUpFirstAdmin, type BrowserSession } from './support/browser-session.js';
import { expectSampleTraceStored, exportSpans, recordSampleTrace } from './support/otlp-sample-trace.js';
import { buildTestApp } from './support/test-app.js';

const legacyKey = 'otlp-test-key-0123456789';
const headers = { Authorization: `Bearer ${legacyKey}` };

describeEachDatabase('the OpenTelemetry exporters send unchanged', (database) => {
  let app: App;
  let baseUrl: string;
  let grpcUrl: string;
  let session: BrowserSession;
  beforeAll(async () => {
    const grpcPort = await freePort();
    grpcUrl = `http://127.0.0.1:${grpcPort}`;
    app = await buildTestApp(database(), { SERVICE_API_KEY: legacyKey, OTLP_GRPC_PORT: String(grpcPort) });
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
  const exporters: Record<string, () => SpanExporter> = {
    'OTLP/gRPC (exporter-trace-otlp-grpc)': () => new GrpcExporter({ url: grpcUrl, metadata: metadata() }),
    'OTLP/gRPC, gzip': () => new GrpcExporter({ url: grpcUrl, metadata: metadata(), compression: CompressionAlgorithm.GZIP }),
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

  it('keys configured the standard way, OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20<key>, authenticate over HTTP and gRPC', async () => {
    process.env.OTEL_EXPORTER_OTLP_HEADERS = `Authorization=Bearer%20${legacyKey}`;
    try {
      for (const [name, exporter] of [
        ['env-http', new HttpProtoExporter({ url: `${baseUrl}/v1/traces` })],
        ['env-grpc', new GrpcExporter({ url: grpcUrl })],
      ] as const) {
        const sample = await recordSampleTrace(name);
        const result = await exportSpans(exporter, sample.spans);
        await exporter.shutdown();
        expect(result.code, String(result.error)).toBe(ExportResultCode.SUCCESS);
        await expectSampleTraceStored(app, session, sample);
      }
    } finally {
      delete process.env.OTEL_EXPORTER_OTLP_HEADERS;
    }
  });

  it('a key whose header value arrives still percent-encoded (Bearer%20<key>, as SDKs that do not decode OTEL_EXPORTER_OTLP_HEADERS send it) authenticates over HTTP and gRPC', async () => {
    const undecoded = `Bearer%20${legacyKey}`;
    const grpcMetadata = new Metadata();
    grpcMetadata.set('authorization', undecoded);
    for (const [name, exporter] of [
      ['undecoded-http', new HttpProtoExporter({ url: `${baseUrl}/v1/traces`, headers: { Authorization: undecoded } })],
      ['undecoded-grpc', new GrpcExporter({ url: grpcUrl, metadata: grpcMetadata })],
    ] as const) {
      const sample = await recordSampleTrace(name);
      const result = await exportSpans(exporter, sample.spans);
      await exporter.shutdown();
      expect(result.code, String(result.error)).toBe(ExportResultCode.SUCCESS);
      await expectSampleTraceStored(app, session, sample);
    }
  });
});

import { it } from 'vitest';
import { Metadata } from '@grpc/grpc-js';
import { OTLPTraceExporter as HttpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as HttpProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPTraceExporter as GrpcExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { expectExportSucceeds, exporterVariants, sampleServiceName, useOtlpTarget } from './support/otlp-exporter-harness.js';
import { expectSampleTraceStored, exportSpans, recordSampleTrace } from './support/otlp-sample-trace.js';

const legacyKey = 'otlp-test-key-0123456789';

describeEachDatabase('the OpenTelemetry exporters send unchanged', (database) => {
  const target = useOtlpTarget(database, legacyKey);
  const exporters = exporterVariants(target, legacyKey, {
    signal: 'trace',
    path: '/v1/traces',
    grpc: GrpcExporter,
    httpJson: HttpJsonExporter,
    httpProto: HttpProtoExporter,
  });

  /** Sends the sample trace with the exporter and expects it stored field for field. */
  const expectTraceArrives = async (name: string, exporter: SpanExporter) => {
    const sample = await recordSampleTrace(name);
    await expectExportSucceeds(exporter, (sending) => exportSpans(sending, sample.spans));
    await expectSampleTraceStored(target.app, target.session, sample);
  };

  for (const [name, createExporter] of Object.entries(exporters)) {
    it(`${name}: a trace with a parent, a child, an exception, an event, a link and attributes reads back field for field`, async () => {
      await expectTraceArrives(sampleServiceName(name), createExporter());
    });
  }

  it('keys configured the standard way, OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20<key>, authenticate over HTTP and gRPC', async () => {
    process.env.OTEL_EXPORTER_OTLP_HEADERS = `Authorization=Bearer%20${legacyKey}`;
    try {
      await expectTraceArrives('env-http', new HttpProtoExporter({ url: `${target.baseUrl}/v1/traces` }));
      await expectTraceArrives('env-grpc', new GrpcExporter({ url: target.grpcUrl }));
    } finally {
      delete process.env.OTEL_EXPORTER_OTLP_HEADERS;
    }
  });

  it('a key whose header value arrives still percent-encoded (Bearer%20<key>, as SDKs that do not decode OTEL_EXPORTER_OTLP_HEADERS send it) authenticates over HTTP and gRPC', async () => {
    const undecoded = `Bearer%20${legacyKey}`;
    const grpcMetadata = new Metadata();
    grpcMetadata.set('authorization', undecoded);
    await expectTraceArrives('undecoded-http', new HttpProtoExporter({ url: `${target.baseUrl}/v1/traces`, headers: { Authorization: undecoded } }));
    await expectTraceArrives('undecoded-grpc', new GrpcExporter({ url: target.grpcUrl, metadata: grpcMetadata }));
  });
});

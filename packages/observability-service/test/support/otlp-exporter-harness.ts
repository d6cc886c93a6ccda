import { expect } from 'vitest';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { CompressionAlgorithm } from '@opentelemetry/otlp-exporter-base';
import { Metadata } from '@grpc/grpc-js';
import { freePort, type TestDatabase } from '@playstack/server-kit/testing';
import { useListeningService, type ListeningService } from './listening-service.js';

/** The service the exporter tests send to: OTLP over HTTP and gRPC, with a first admin signed in to read back. */
export interface OtlpTarget extends ListeningService {
  grpcUrl: string;
}

/**
 * Starts the service for the suite (useListeningService), also serving OTLP/gRPC on a free port,
 * accepting `legacyKey` as SERVICE_API_KEY.
 */
export function useOtlpTarget(database: () => TestDatabase, legacyKey: string, env: Record<string, string> = {}): OtlpTarget {
  return useListeningService<OtlpTarget>(database, async (target) => {
    const grpcPort = await freePort();
    target.grpcUrl = `http://127.0.0.1:${grpcPort}`;
    return { SERVICE_API_KEY: legacyKey, OTLP_GRPC_PORT: String(grpcPort), ...env };
  });
}

/** What the trace and log exporters of the SDK both have: a `shutdown` that flushes and closes them. */
export interface ShutdownExporter {
  shutdown(): Promise<void>;
}

type GrpcExporterClass<E> = new (config: { url: string; metadata: Metadata; compression?: CompressionAlgorithm }) => E;
type HttpExporterClass<E> = new (config: { url: string; headers: Record<string, string>; compression?: CompressionAlgorithm }) => E;

/** The three official exporters of one signal (`trace` or `logs`, as their package names spell it). */
export interface OfficialExporters<E> {
  signal: 'trace' | 'logs';
  path: '/v1/traces' | '/v1/logs';
  grpc: GrpcExporterClass<E>;
  httpJson: HttpExporterClass<E>;
  httpProto: HttpExporterClass<E>;
}

/**
 * Each official exporter of the signal, plain and gzip-compressed, configured with `Bearer <legacyKey>`
 * as an application sets it up, by a name that says which package and transport it is.
 */
export function exporterVariants<E>(target: OtlpTarget, legacyKey: string, exporters: OfficialExporters<E>): Record<string, () => E> {
  const { signal, path, grpc: Grpc, httpJson: HttpJson, httpProto: HttpProto } = exporters;
  const headers = { Authorization: `Bearer ${legacyKey}` };
  const metadata = () => {
    const value = new Metadata();
    value.set('authorization', `Bearer ${legacyKey}`);
    return value;
  };
  const url = () => `${target.baseUrl}${path}`;
  const gzip = CompressionAlgorithm.GZIP;
  return {
    [`OTLP/gRPC (exporter-${signal}-otlp-grpc)`]: () => new Grpc({ url: target.grpcUrl, metadata: metadata() }),
    'OTLP/gRPC, gzip': () => new Grpc({ url: target.grpcUrl, metadata: metadata(), compression: gzip }),
    [`OTLP/HTTP JSON (exporter-${signal}-otlp-http)`]: () => new HttpJson({ url: url(), headers }),
    'OTLP/HTTP JSON, gzip': () => new HttpJson({ url: url(), headers, compression: gzip }),
    [`OTLP/HTTP protobuf (exporter-${signal}-otlp-proto)`]: () => new HttpProto({ url: url(), headers }),
    'OTLP/HTTP protobuf, gzip': () => new HttpProto({ url: url(), headers, compression: gzip }),
  };
}

/** A sample name for the exporter, safe as a service name (`checkout-otlp-grpc-gzip`). */
export function sampleServiceName(exporterName: string): string {
  return `checkout-${exporterName.replace(/[^a-z]+/gi, '-').toLowerCase()}`;
}

/** Sends with the exporter, shuts it down and expects the export to have succeeded. */
export async function expectExportSucceeds<E extends ShutdownExporter>(exporter: E, send: (exporter: E) => Promise<ExportResult>): Promise<void> {
  const result = await send(exporter);
  await exporter.shutdown();
  expect(result.error).toBeUndefined();
  expect(result.code).toBe(ExportResultCode.SUCCESS);
}

import { afterAll, beforeAll, expect } from 'vitest';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { CompressionAlgorithm } from '@opentelemetry/otlp-exporter-base';
import { Metadata } from '@grpc/grpc-js';
import type { App } from '@playstack/server-kit';
import { freePort, type TestDatabase } from '@playstack/server-kit/testing';
import { setUpFirstAdmin, type BrowserSession } from './browser-session.js';
import { buildTestApp } from './test-app.js';

/** The service the exporter tests send to: OTLP over HTTP and gRPC, with a first admin signed in to read back. */
export interface OtlpTarget {
  app: App;
  baseUrl: string;
  grpcUrl: string;
  session: BrowserSession;
}

/**
 * Starts the service for the suite (before all its tests, closed after them), listening on HTTP and
 * on a free gRPC port, accepting `legacyKey` as SERVICE_API_KEY. The returned object is filled in by
 * the time the tests run.
 */
export function useOtlpTarget(database: () => TestDatabase, legacyKey: string, env: Record<string, string> = {}): OtlpTarget {
  const target = {} as OtlpTarget;
  beforeAll(async () => {
    const grpcPort = await freePort();
    target.grpcUrl = `http://127.0.0.1:${grpcPort}`;
    target.app = await buildTestApp(database(), { SERVICE_API_KEY: legacyKey, OTLP_GRPC_PORT: String(grpcPort), ...env });
    target.baseUrl = await target.app.listen({ port: 0, host: '127.0.0.1' });
    target.session = await setUpFirstAdmin(target.app);
  });
  afterAll(async () => {
    await target.app.close();
  });
  return target;
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

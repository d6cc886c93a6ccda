import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { RawServerDefault } from 'fastify';
import fp from 'fastify-plugin';
import { format } from 'node:util';
import { Metadata, Server, ServerCredentials, setLogger, type sendUnaryData, type ServerUnaryCall, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { ApiError, ConfigError, type App } from '@playstack/server-kit';
import { exportSignal, type OtlpSignal } from './otlp-signal.js';
import { encodeStatus, grpcCodeOf, otlpStatus } from './otlp-status.js';

/** The OTLP/gRPC port when OTLP_GRPC_PORT is unset (OTLP specification, "OTLP/gRPC Default Port"). */
export const defaultOtlpGrpcPort = 4317;

export interface OtlpGrpcOptions {
  /** Unset: the default port, skipped with a warning when taken. 0: off. Otherwise it must bind. */
  port: number | undefined;
  host: string;
  tls: { certFile: string | undefined; keyFile: string | undefined };
  shutdownTimeoutMs: number;
  signals: (app: App) => OtlpSignal[];
}

/** The credentials the server binds with: TLS when a certificate and key are configured. */
function credentialsFor(tls: OtlpGrpcOptions['tls']): ServerCredentials {
  if (!tls.certFile && !tls.keyFile) return ServerCredentials.createInsecure();
  if (!tls.certFile || !tls.keyFile) throw new ConfigError('OTLP_GRPC_TLS_CERT_FILE and OTLP_GRPC_TLS_KEY_FILE: set both for TLS, or neither');
  const read = (variable: string, file: string) => {
    try {
      return readFileSync(file);
    } catch (error) {
      throw new ConfigError(`${variable}: cannot read ${file}: ${(error as Error).message}`);
    }
  };
  return ServerCredentials.createSsl(null, [{ cert_chain: read('OTLP_GRPC_TLS_CERT_FILE', tls.certFile), private_key: read('OTLP_GRPC_TLS_KEY_FILE', tls.keyFile) }], false);
}

/** `host:port` as gRPC addresses write it (IPv6 hosts in brackets). */
function grpcAddress(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * OTLP/gRPC: each signal's `Export` method (`TraceService/Export`, ...), authenticated with the
 * `authorization: Bearer <key>` metadata and ingested through the same pipeline as OTLP/HTTP.
 * Errors carry their google.rpc.Status (RetryInfo when retryable) in `grpc-status-details-bin`.
 */
function exportHandler(app: App, signal: OtlpSignal) {
  const { ingestion } = app;
  return async (call: ServerUnaryCall<Buffer, Buffer | string>, callback: sendUnaryData<Buffer | string>) => {
    try {
      const authorization = call.metadata.get('authorization')[0];
      await ingestion.admit(authorization === undefined ? undefined : String(authorization));
      callback(null, await exportSignal(ingestion, signal, call.request, 'protobuf'));
    } catch (error) {
      const apiError = error instanceof ApiError ? error : new ApiError('internal-error', 'An unexpected error occurred; it has been logged.', { cause: error });
      if (apiError.statusCode >= 500) app.log.warn({ err: error, grpcMethod: signal.grpcPath }, apiError.message);
      const trailers = new Metadata();
      trailers.set('grpc-status-details-bin', encodeStatus(otlpStatus(apiError, randomUUID()), 'protobuf') as Buffer);
      callback({ code: grpcCodeOf(apiError), details: apiError.message, metadata: trailers });
    }
  };
}

/** Listens once the app is ready; stops with it, letting exports in flight finish first. */
export const otlpGrpcPlugin = fp<OtlpGrpcOptions, RawServerDefault, TypeBoxTypeProvider>(
  async (app, options) => {
    if (options.port === 0) return;
    const credentials = credentialsFor(options.tls);
    const server = new Server({
      // Bounds every message, decompressed too (gzip bombs stop there): RESOURCE_EXHAUSTED, not retried.
      'grpc.max_receive_message_length': app.ingestion.limits.maxDecompressedBytes,
    });
    for (const signal of options.signals(app)) {
      const service = {
        Export: {
          path: signal.grpcPath,
          requestStream: false,
          responseStream: false,
          // Bodies stay bytes here: the handler decodes them, so an undecodable one is INVALID_ARGUMENT.
          requestSerialize: (value: Buffer) => value,
          requestDeserialize: (bytes: Buffer) => bytes,
          responseSerialize: (value: Buffer) => value,
          responseDeserialize: (bytes: Buffer) => bytes,
        },
      };
      server.addService(service, { Export: exportHandler(app, signal) } as UntypedServiceImplementation);
    }
    // grpc-js writes its own diagnostics to the console; they belong in the service's log, where
    // a failed bind is reported once, below, rather than as a stray line on stderr.
    setLogger({
      error: (...args: unknown[]) => app.log.debug(`gRPC: ${format(...args)}`),
      info: (...args: unknown[]) => app.log.debug(`gRPC: ${format(...args)}`),
      debug: (...args: unknown[]) => app.log.trace(`gRPC: ${format(...args)}`),
    });
    const port = options.port ?? defaultOtlpGrpcPort;
    const address = grpcAddress(options.host, port);
    let listening = false;
    app.addHook('onReady', async () => {
      try {
        const bound = await new Promise<number>((resolve, reject) => server.bindAsync(address, credentials, (error, boundPort) => (error ? reject(error) : resolve(boundPort))));
        listening = true;
        app.log.info({ port: bound, tls: Boolean(options.tls.certFile) }, `OTLP/gRPC serving on ${grpcAddress(options.host, bound)}`);
      } catch (error) {
        const reason = /EADDRINUSE/.test((error as Error).message)
          ? 'the port is in use by another process; stop it, set OTLP_GRPC_PORT to a free port, or to 0 to turn OTLP/gRPC off'
          : (error as Error).message;
        if (options.port !== undefined) throw new ConfigError(`OTLP/gRPC cannot listen on ${address} (OTLP_GRPC_PORT): ${reason}`);
        app.log.warn({ err: error }, `OTLP/gRPC is off: port ${port} is taken. Set OTLP_GRPC_PORT to a free port, or to 0 to turn gRPC off.`);
      }
    });
    app.addHook('preClose', async () => {
      if (!listening) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, options.shutdownTimeoutMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    });
  },
  { name: 'otlp-grpc', dependencies: ['ingestion'] },
);

import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, toApiError, type App } from '@playstack/server-kit';
import { decodeIngestBody } from '../ingest/ingest-body-parser.js';
import { installIngestAuth } from '../ingest/ingest-auth.js';
import { IngestHeaders } from '../ingest/ingest-schemas.js';
import { contentTypes, encodingOf } from './otlp-encoding.js';
import { exportSignal, type OtlpSignal } from './otlp-signal.js';
import { OtlpStatus, otlpBodyContent, otlpResponseContent } from './otlp-schemas.js';
import { encodeStatus, otlpStatus } from './otlp-status.js';

export interface OtlpHttpOptions {
  signals: (app: App) => OtlpSignal[];
}

/** Answers an error as OTLP/HTTP asks: a google.rpc.Status in the request's encoding, with its headers. */
function sendStatus(request: FastifyRequest, reply: FastifyReply, error: ApiError): FastifyReply {
  const encoding = encodingOf(request.headers['content-type']);
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply.code(error.statusCode).type(contentTypes[encoding]).send(encodeStatus(otlpStatus(error, String(request.id)), encoding));
}

function asOtlpError(error: FastifyError): ApiError {
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new ApiError('unsupported-media-type', 'OTLP/HTTP bodies are application/x-protobuf or application/json.');
  }
  return toApiError(error) ?? new ApiError('internal-error', 'An unexpected error occurred; it has been logged.');
}

/**
 * OTLP/HTTP (`POST /v1/traces`, ...): binary protobuf or JSON by Content-Type, optionally gzip,
 * authenticated with ingestion keys like protocol v1. Successes and errors are answered in the
 * request's encoding, errors as google.rpc.Status (OTLP specification, "OTLP/HTTP Response").
 */
export async function otlpHttpRoutes(app: App, options: OtlpHttpOptions): Promise<void> {
  const { ingestion } = app;
  const parseBody = async (request: FastifyRequest, raw: Buffer) => decodeIngestBody(request, raw, ingestion.limits);
  app.removeAllContentTypeParsers();
  for (const type of Object.values(contentTypes)) app.addContentTypeParser(type, { parseAs: 'buffer', bodyLimit: ingestion.limits.maxBodyBytes }, parseBody);
  installIngestAuth(app, ingestion.admit);
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const apiError = asOtlpError(error);
    if (apiError.statusCode >= 500) request.log.warn({ err: error }, apiError.message);
    return sendStatus(request, reply, apiError);
  });
  app.addSchema(OtlpStatus);

  for (const signal of options.signals(app)) {
    const message = signal.requestType.fullName.replace(/^\./, '');
    app.post(
      signal.httpPath,
      {
        bodyLimit: ingestion.limits.maxBodyBytes,
        // The body is decoded by the handler (protobufjs); the schema documents it.
        validatorCompiler: () => () => true,
        schema: {
          tags: ['ingest'],
          summary: `OTLP/HTTP export (${signal.responseType.name.replace(/^Export|ServiceResponse$/g, '').toLowerCase()})`,
          description: `${message}, binary protobuf or JSON by Content-Type, optionally gzip. See docs/otlp.md.`,
          security: [{ ingestionKey: [] }],
          headers: IngestHeaders,
          body: otlpBodyContent(message),
          response: {
            200: otlpResponseContent(signal.responseType.fullName.replace(/^\./, ''), signal.rejectedField),
            ...Object.fromEntries([400, 401, 413, 415, 429, 503].map((status) => [status, { $ref: 'OtlpStatus#' }])),
          },
        },
      },
      async (request, reply) => {
        const encoding = encodingOf(request.headers['content-type']);
        const body = await exportSignal(ingestion, signal, request.body as Buffer, encoding);
        return reply.code(200).type(contentTypes[encoding]).send(body);
      },
    );
  }
}

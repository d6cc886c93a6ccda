import type { FastifyInstance } from 'fastify';
import { ApiError, errorResponses, type App } from '@playstack/server-kit';
import { InvalidEnvelopeError, type EnvelopeShell, type EnvelopeValidator } from '../ingest/envelope-validator.js';
import type { ProtocolResource } from '../ingest/protocol-types.js';
import type { IngestResult, ResourceBatch } from '../ingest/envelope-ingestor.js';
import { IngestHeaders } from '../ingest/ingest-schemas.js';
import { mapOtlpResource, mapOtlpSpan } from './otlp-span-mapper.js';
import { OtlpTraceRequest, OtlpTraceResponse } from './otlp-schemas.js';

/** How many refusal reasons the OTLP response quotes (its errorMessage is one string). */
const quotedErrors = 5;

/**
 * `POST /v1/traces`: OTLP/HTTP with JSON encoding, so any OpenTelemetry SDK can send unchanged.
 * Resource spans become protocol v1 occurrences and go through the same validation, limits and
 * storage as envelopes; the same ingestion keys authenticate.
 */
export async function otlpRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify as unknown as App;
  const { ingestion } = app;
  ingestion.prepareScope(app);
  app.post(
    '/v1/traces',
    {
      schema: {
        tags: ['ingest'],
        summary: 'Ingest OpenTelemetry traces (OTLP/HTTP JSON)',
        description: 'JSON encoding only (protobuf is 415), optionally gzip. Spans map to occurrences as docs/protocol-v1.md describes.',
        security: [{ ingestionKey: [] }],
        headers: IngestHeaders,
        body: OtlpTraceRequest,
        response: { 200: OtlpTraceResponse, ...errorResponses(400, 401, 413, 415, 429, 503) },
      },
    },
    async (request) => {
      const result = await ingestion.run(() => ingestOtlp(app, request.body));
      if (result.rejected.occurrences === 0) return {};
      const reasons = result.errors.slice(0, quotedErrors).map((error) => `span ${error.index}: ${error.message}`);
      return { partialSuccess: { rejectedSpans: result.rejected.occurrences, errorMessage: reasons.join('; ') } };
    },
  );
}

async function ingestOtlp(app: App, body: OtlpTraceRequest): Promise<IngestResult> {
  const { ingestor, validator } = app.ingestion;
  const result: IngestResult = { accepted: { occurrences: 0 }, rejected: { occurrences: 0 }, truncated: { strings: 0 }, errors: [] };
  const batches: ResourceBatch[] = [];
  let index = 0;
  for (const resourceSpans of body.resourceSpans) {
    const shell = checkResource(validator, mapOtlpResource(resourceSpans.resource), app.clock.now());
    result.truncated.strings += shell.truncated;
    const batch: ResourceBatch = { resource: shell.resource, occurrences: [] };
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      for (const span of scopeSpans.spans ?? []) {
        ingestor.checkOccurrence(mapOtlpSpan(span as Record<string, unknown>), index, batch, result);
        index += 1;
      }
    }
    batches.push(batch);
  }
  return ingestor.store(batches, result);
}

/** Validates (and truncates) a mapped resource with the envelope schema's resource rules. */
function checkResource(validator: EnvelopeValidator, resource: ProtocolResource, now: number): EnvelopeShell {
  try {
    return validator.checkShell({ protocol: 1, sentAt: new Date(now).toISOString(), resource, occurrences: [] });
  } catch (error) {
    if (error instanceof InvalidEnvelopeError) throw new ApiError('invalid-request', `A resource cannot be mapped: ${error.message}.`);
    throw error;
  }
}

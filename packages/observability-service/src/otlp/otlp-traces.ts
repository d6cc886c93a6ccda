import type { Clock } from '@playstack/server-kit';
import { emptyIngestResult, type ResourceBatch } from '../ingest/envelope-ingestor.js';
import type { Ingestion } from '../ingest/ingestion-plugin.js';
import { checkResource } from './otlp-resource-check.js';
import { otlpType } from './otlp-protos.js';
import { refusalMessage, type OtlpExportOutcome, type OtlpSignal } from './otlp-signal.js';
import { mapOtlpResource, mapOtlpSpan, type OtlpResource, type OtlpSpan } from './otlp-span-mapper.js';

/** Where OTLP/HTTP traces are posted. */
export const tracesHttpPath = '/v1/traces';

/** `ExportTraceServiceRequest` as decoded. */
interface TraceRequest {
  resourceSpans?: Array<{ resource?: OtlpResource | null; scopeSpans?: Array<{ spans?: OtlpSpan[] }> }>;
}

/** Traces: `POST /v1/traces` and `TraceService/Export`. Spans become occurrences. */
export function traceSignal(ingestion: Ingestion, clock: Clock): OtlpSignal {
  return {
    httpPath: tracesHttpPath,
    grpcPath: '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
    requestType: otlpType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest'),
    responseType: otlpType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse'),
    rejectedField: 'rejectedSpans',
    ingest: (request) => ingestTraces(ingestion, clock, request as TraceRequest),
  };
}

/**
 * Maps every span (numbered in request order) to an occurrence through the one mapping, validates
 * it as protocol v1 validates occurrences, and stores the valid ones through the same writer.
 */
async function ingestTraces(ingestion: Ingestion, clock: Clock, request: TraceRequest): Promise<OtlpExportOutcome> {
  const { ingestor, validator } = ingestion;
  const resourceSpans = request.resourceSpans ?? [];
  let spanCount = 0;
  for (const entry of resourceSpans) for (const scope of entry.scopeSpans ?? []) spanCount += scope.spans?.length ?? 0;
  ingestor.checkCount(spanCount);

  const result = emptyIngestResult();
  const batches: ResourceBatch[] = [];
  let index = 0;
  for (const entry of resourceSpans) {
    const { resource, otherAttributes } = mapOtlpResource(entry.resource);
    const shell = checkResource(validator, resource, clock.now());
    result.truncated.strings += shell.truncated;
    const batch: ResourceBatch = { resource: shell.resource, resourceAttributes: otherAttributes, occurrences: [] };
    for (const scope of entry.scopeSpans ?? []) {
      for (const span of scope.spans ?? []) {
        const mapped = mapOtlpSpan(span);
        if (mapped.ok) ingestor.checkOccurrence(mapped.occurrence, index, batch, result, mapped.extras);
        else result.errors.push({ index, message: mapped.message });
        index += 1;
      }
    }
    batches.push(batch);
  }
  const stored = await ingestor.store(batches, result);
  return { rejected: stored.rejected.occurrences, errorMessage: refusalMessage('span', stored.errors) };
}

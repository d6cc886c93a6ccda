import type protobuf from 'protobufjs';
import type { Ingestion } from '../ingest/ingestion-plugin.js';
import { decodeOtlp, encodeOtlp, type OtlpEncoding } from './otlp-encoding.js';

/** What an export left out: the `partial_success` of the response (nothing when all was kept). */
export interface OtlpExportOutcome {
  rejected: number;
  errorMessage: string;
}

/**
 * One OTLP signal (traces; logs next) as every transport serves it: its message types, where it
 * is served, and how a decoded request is ingested.
 */
export interface OtlpSignal {
  /** The HTTP path, e.g. `/v1/traces`. */
  httpPath: string;
  /** The gRPC method path, e.g. `/opentelemetry.proto.collector.trace.v1.TraceService/Export`. */
  grpcPath: string;
  requestType: protobuf.Type;
  responseType: protobuf.Type;
  /** The `partial_success` member counting refused items, e.g. `rejectedSpans`. */
  rejectedField: string;
  /** Ingests a decoded request; resolves once what it accepted is committed. */
  ingest(request: unknown): Promise<OtlpExportOutcome>;
}

/** How many refusal reasons the partial success quotes (its error_message is one string). */
const quotedReasons = 5;

/** The `error_message` of a partial success: the first reasons, and how many more there were. */
export function refusalMessage(noun: string, errors: ReadonlyArray<{ index: number; message: string }>): string {
  const quoted = errors.slice(0, quotedReasons).map((error) => `${noun} ${error.index}: ${error.message}`);
  if (errors.length > quotedReasons) quoted.push(`and ${errors.length - quotedReasons} more`);
  return quoted.join('; ');
}

/**
 * Serves one export, whatever the transport: decodes the body (400 when it cannot be), admits
 * nothing itself (the transport has checked the key), ingests through the one pipeline (503 when
 * storage fails) and encodes the response in the request's encoding.
 */
export async function exportSignal(ingestion: Ingestion, signal: OtlpSignal, body: Buffer, encoding: OtlpEncoding): Promise<Buffer | string> {
  let request: unknown = decodeOtlp<unknown>(signal.requestType, body, encoding);
  const outcome = await ingestion.run(() => {
    // Handed over, not kept: the decoded messages can be collected while the commit is awaited.
    const decoded = request;
    request = undefined;
    return signal.ingest(decoded);
  });
  const response = outcome.rejected === 0 ? {} : { partialSuccess: { [signal.rejectedField]: outcome.rejected, errorMessage: outcome.errorMessage } };
  return encodeOtlp(signal.responseType, response, encoding);
}

import { status as GrpcStatus } from '@grpc/grpc-js';
import type { ApiError } from '@playstack/server-kit';
import { encodeOtlp, type OtlpEncoding } from './otlp-encoding.js';
import { otlpType } from './otlp-protos.js';

/** The gRPC code for each HTTP status the ingest endpoints answer with (google.rpc.Status.code). */
const grpcCodeByHttpStatus: Record<number, GrpcStatus> = {
  400: GrpcStatus.INVALID_ARGUMENT,
  401: GrpcStatus.UNAUTHENTICATED,
  403: GrpcStatus.PERMISSION_DENIED,
  404: GrpcStatus.NOT_FOUND,
  // Over the size limit: not retryable, as RESOURCE_EXHAUSTED without RetryInfo is not.
  413: GrpcStatus.RESOURCE_EXHAUSTED,
  415: GrpcStatus.INVALID_ARGUMENT,
  // Throttled: retryable, RetryInfo says when.
  429: GrpcStatus.RESOURCE_EXHAUSTED,
  500: GrpcStatus.INTERNAL,
  503: GrpcStatus.UNAVAILABLE,
};

/** Names the service in ErrorInfo.domain. */
const errorDomain = 'observability.playstack';

const typeUrl = (name: string) => `type.googleapis.com/${name}`;
const retryInfoUrl = typeUrl('google.rpc.RetryInfo');

/** The gRPC status code an ApiError is answered with on OTLP/gRPC. */
export function grpcCodeOf(error: ApiError): GrpcStatus {
  return grpcCodeByHttpStatus[error.statusCode] ?? (error.statusCode >= 500 ? GrpcStatus.INTERNAL : GrpcStatus.INVALID_ARGUMENT);
}

/** Seconds the client should wait, from the error's Retry-After header. */
export function retryAfterSeconds(error: ApiError): number | undefined {
  const value = error.headers['retry-after'];
  return value === undefined ? undefined : Number(value);
}

/**
 * The `google.rpc.Status` (as a plain object for protobufjs's `fromObject`) describing an error,
 * as the OTLP specification asks for failed exports: the message; ErrorInfo with the service's
 * error code and the request id; RetryInfo when the client may retry later (throttled, not
 * ready); BadRequest for undecodable or invalid data.
 */
export function otlpStatus(error: ApiError, requestId: string): Record<string, unknown> {
  const details: Array<Record<string, unknown>> = [
    { '@type': typeUrl('google.rpc.ErrorInfo'), reason: error.code, domain: errorDomain, metadata: { requestId } },
  ];
  const retryAfter = retryAfterSeconds(error);
  if (retryAfter !== undefined) details.push({ '@type': retryInfoUrl, retryDelay: { seconds: retryAfter, nanos: 0 } });
  if (error.statusCode === 400) details.push({ '@type': typeUrl('google.rpc.BadRequest'), fieldViolations: [{ description: error.message }] });
  return { code: grpcCodeOf(error), message: error.message, details };
}

/**
 * A Status in the request's encoding. In JSON the RetryInfo delay is written as the proto3 JSON
 * mapping writes a Duration (`"2s"`), which protobufjs leaves as an object.
 */
export function encodeStatus(status: Record<string, unknown>, encoding: OtlpEncoding): Buffer | string {
  if (encoding === 'protobuf') return encodeOtlp(otlpType('google.rpc.Status'), status, encoding);
  const details = (status.details as Array<Record<string, unknown>>).map((detail) =>
    detail['@type'] === retryInfoUrl ? { ...detail, retryDelay: `${(detail.retryDelay as { seconds: number }).seconds}s` } : detail,
  );
  return JSON.stringify({ ...status, details });
}

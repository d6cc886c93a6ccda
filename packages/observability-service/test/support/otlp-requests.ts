import { randomBytes } from 'node:crypto';
import { encodeOtlp, type OtlpEncoding } from '../../src/otlp/otlp-encoding.js';
import { otlpType } from '../../src/otlp/otlp-protos.js';

export const traceRequestType = otlpType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');
export const traceResponseType = otlpType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse');
export const statusType = otlpType('google.rpc.Status');
export const logsRequestType = otlpType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest');

/** A minimal OTLP span in OTLP/JSON form (hex ids), starting now; `overrides` replace members. */
export function jsonSpan(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const start = BigInt(Date.now()) * 1_000_000n;
  return {
    traceId: randomBytes(16).toString('hex'),
    spanId: randomBytes(8).toString('hex'),
    name: 'work',
    kind: 1,
    startTimeUnixNano: String(start),
    endTimeUnixNano: String(start + 2_500_000n),
    ...overrides,
  };
}

/** An ExportTraceServiceRequest of these OTLP/JSON spans under one resource. */
export function jsonTraceRequest(spans: Array<Record<string, unknown>>, service = 'raw-otlp'): Record<string, unknown> {
  return {
    resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: service } }] }, scopeSpans: [{ scope: { name: 't' }, spans }] }],
  };
}

/** A minimal OTLP log record in OTLP/JSON form, timed now; `overrides` replace members. */
export function jsonLogRecord(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { timeUnixNano: String(BigInt(Date.now()) * 1_000_000n), severityNumber: 9, body: { stringValue: 'something happened' }, ...overrides };
}

/** An ExportLogsServiceRequest of these OTLP/JSON log records under one resource. */
export function jsonLogsRequest(logRecords: Array<Record<string, unknown>>, service = 'raw-otlp'): Record<string, unknown> {
  return {
    resourceLogs: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: service } }] }, scopeLogs: [{ scope: { name: 't' }, logRecords }] }],
  };
}

const idFields = new Set(['traceId', 'spanId', 'parentSpanId']);

/** The request body in an encoding (protobuf: ids as bytes, as the JSON form's hex says). */
export function encodeTraceRequest(request: Record<string, unknown>, encoding: OtlpEncoding, type = traceRequestType): Buffer {
  if (encoding === 'json') return Buffer.from(JSON.stringify(request));
  const withBytes = JSON.parse(JSON.stringify(request), (key: string, value: unknown) =>
    idFields.has(key) && typeof value === 'string' ? Buffer.from(value, 'hex') : value,
  ) as Record<string, unknown>;
  return encodeOtlp(type, withBytes, 'protobuf') as Buffer;
}

/** A response body (export response or Status) decoded from its encoding into plain JSON form. */
export function decodeBody(type: typeof statusType, body: Buffer, encoding: OtlpEncoding): Record<string, unknown> {
  if (encoding === 'json') return JSON.parse(body.toString('utf8')) as Record<string, unknown>;
  return type.toObject(type.decode(body), { longs: String, enums: Number, json: true }) as Record<string, unknown>;
}

import type { LogRecordExtras } from '../ingest/log-record-mapper.js';
import type { AttributeValue } from '../ingest/protocol-types.js';
import { hexId } from './otlp-span-mapper.js';
import { attributeMap, boundedAttributes, jsonValue, nanosToWholeMs, nanosWithinMs, type Int64, type OtlpAnyValue, type OtlpKeyValue } from './otlp-values.js';

/** `opentelemetry.proto.logs.v1.LogRecord` as decoded (ids are bytes in every encoding by then). */
export interface OtlpLogRecord {
  timeUnixNano?: Int64;
  observedTimeUnixNano?: Int64;
  severityNumber?: number;
  severityText?: string;
  body?: OtlpAnyValue | null;
  attributes?: OtlpKeyValue[];
  flags?: number;
  traceId?: Uint8Array;
  spanId?: Uint8Array;
  eventName?: string;
}

/** `opentelemetry.proto.common.v1.InstrumentationScope` as decoded. */
export interface OtlpScope {
  name?: string;
  version?: string;
}

const traceIdBytes = 16;
const spanIdBytes = 8;
/** The trace flags are the low 8 bits of `flags` (LOG_RECORD_FLAGS_TRACE_FLAGS_MASK). */
const traceFlagsMask = 0xff;
/** Record attributes that become fields instead of free attributes. */
const mappedAttributes = new Set(['tenant.id']);

export type MappedLogRecord = { ok: true; log: Record<string, unknown>; extras: LogRecordExtras } | { ok: false; message: string };

/** An id, or undefined for none (empty, or all zero as some senders write "no trace"); null when its length is wrong. */
function optionalId(bytes: Uint8Array | undefined, length: number): string | undefined | null {
  if (!bytes || bytes.length === 0 || bytes.every((byte) => byte === 0)) return undefined;
  return bytes.length === length ? hexId(bytes) : null;
}

/**
 * A protocol v1 log record (unvalidated: the envelope validator checks it next) from an OTLP log
 * record of any encoding. Without a time the record takes its observed time, without either the
 * receipt time (the OpenTelemetry data model's advice). Ids of the wrong length refuse the record.
 */
export function mapOtlpLogRecord(record: OtlpLogRecord, scope: OtlpScope | null | undefined, resourceTenant: AttributeValue | undefined, receivedAtMs: number): MappedLogRecord {
  const traceId = optionalId(record.traceId, traceIdBytes);
  if (traceId === null) return { ok: false, message: `traceId must be empty or ${traceIdBytes} bytes (${traceIdBytes * 2} hex characters in JSON); it has ${record.traceId?.length}` };
  const spanId = optionalId(record.spanId, spanIdBytes);
  if (spanId === null) return { ok: false, message: `spanId must be empty or ${spanIdBytes} bytes (${spanIdBytes * 2} hex characters in JSON); it has ${record.spanId?.length}` };
  const observedMs = nanosToWholeMs(record.observedTimeUnixNano);
  const ownTimeMs = nanosToWholeMs(record.timeUnixNano);
  const timeSource = ownTimeMs > 0 ? record.timeUnixNano : observedMs > 0 ? record.observedTimeUnixNano : undefined;
  const timeMs = timeSource === undefined ? receivedAtMs : ownTimeMs > 0 ? ownTimeMs : observedMs;

  const attributes = attributeMap(record.attributes);
  const log: Record<string, unknown> = { time: new Date(timeMs).toISOString() };
  if (observedMs > 0) log.observedAt = new Date(observedMs).toISOString();
  if (record.severityNumber) log.severityNumber = record.severityNumber;
  if (record.severityText) log.severityText = record.severityText;
  const body = jsonValue(record.body);
  if (body !== undefined && body !== null) log.body = body;
  if (record.eventName) log.eventName = record.eventName;
  if (scope?.name || scope?.version) {
    log.scope = { ...(scope.name ? { name: scope.name } : {}), ...(scope.version ? { version: scope.version } : {}) };
  }
  if (traceId !== undefined) log.traceId = traceId;
  if (spanId !== undefined) log.spanId = spanId;
  const tenantId = attributes.get('tenant.id') ?? resourceTenant;
  if (tenantId !== undefined && tenantId !== '') log.tenantId = String(tenantId);
  const free = boundedAttributes(attributes, mappedAttributes);
  if (free) log.attributes = free;
  return { ok: true, log, extras: { timeNs: timeSource === undefined ? 0 : nanosWithinMs(timeSource), flags: (record.flags ?? 0) & traceFlagsMask } };
}

import type { AcceptanceWindow } from '../ingest/occurrence-mapper.js';
import { storedBody } from '../ingest/log-record-mapper.js';
import type { AttributeValue, ProtocolResource } from '../ingest/protocol-types.js';
import { inferSeverityNumber, maxSeverityNumber, type NewLogRecord } from '../logs/index.js';
import { hexId } from './otlp-span-mapper.js';
import { attributeMap, boundedAttributes, jsonValue, nanosToWholeMs, nanosWithinMs, type Int64, type OtlpAnyValue, type OtlpKeyValue } from './otlp-values.js';

/**
 * OTLP log records straight to storage rows: the one pass that replaces mapping each record to a
 * protocol v1 object, validating that with the envelope schema and mapping it again to a row.
 * It applies the same rules as that path (the schema's `logRecord` bounds: long texts cut and
 * counted, out-of-range severities and ids of the wrong length refused; the acceptance window),
 * with the same refusal messages, without the intermediate objects. (A 64-bit nanosecond time
 * ends in 2554, so every time is a valid RFC 3339 one.)
 */

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

/** The schema's bounds of a log record's texts (docs/protocol-v1.schema.json, `logRecord`): longer ones are cut. */
const textBounds = { severityText: 32, body: 16_384, eventName: 256, scopeName: 256, scopeVersion: 64, tenantId: 128 } as const;
const traceIdBytes = 16;
const spanIdBytes = 8;
/** The trace flags are the low 8 bits of `flags` (LOG_RECORD_FLAGS_TRACE_FLAGS_MASK). */
const traceFlagsMask = 0xff;
/** Record attributes that become fields instead of free attributes. */
const mappedAttributes = new Set(['tenant.id']);

/** What every record of one OTLP resource shares. */
export interface LogResource {
  resource: ProtocolResource;
  /** JSON text of the resource's other attributes, or null. */
  resourceAttributes: string | null;
  /** The resource's `tenant.id`, the records' tenant when they name none. */
  tenant: AttributeValue | undefined;
}

export type LogRowResult = { ok: true; row: NewLogRecord; truncated: number } | { ok: false; message: string };

/** Counts the texts `boundedText` cuts. */
class Cuts {
  count = 0;

  /** `text` cut to `max` characters (code points, as JSON Schema counts them), counted when cut. */
  bounded(text: string, max: number): string {
    if (text.length <= max) return text;
    const points = Array.from(text);
    if (points.length <= max) return text;
    this.count += 1;
    return points.slice(0, max).join('');
  }
}

/** An id as hex, or null for none (empty, or all zero as some senders write "no trace"); undefined when its length is wrong. */
function optionalId(bytes: Uint8Array | undefined, length: number): string | null | undefined {
  if (!bytes || bytes.length === 0) return null;
  let zero = true;
  for (let i = 0; i < bytes.length && zero; i++) zero = bytes[i] === 0;
  if (zero) return null;
  return bytes.length === length ? hexId(bytes) : undefined;
}

/**
 * The storage row of an OTLP log record of any encoding, or why it is refused. Without a time the
 * record takes its observed time, without either the receipt time (the OpenTelemetry data model's
 * advice).
 */
export function otlpLogRow(record: OtlpLogRecord, scope: OtlpScope | null | undefined, owner: LogResource, window: AcceptanceWindow, receivedAtMs: number): LogRowResult {
  const traceId = optionalId(record.traceId, traceIdBytes);
  if (traceId === undefined) return { ok: false, message: `traceId must be empty or ${traceIdBytes} bytes (${traceIdBytes * 2} hex characters in JSON); it has ${record.traceId?.length}` };
  const spanId = optionalId(record.spanId, spanIdBytes);
  if (spanId === undefined) return { ok: false, message: `spanId must be empty or ${spanIdBytes} bytes (${spanIdBytes * 2} hex characters in JSON); it has ${record.spanId?.length}` };
  const observedMs = nanosToWholeMs(record.observedTimeUnixNano);
  const ownTimeMs = nanosToWholeMs(record.timeUnixNano);
  const timeSource = ownTimeMs > 0 ? record.timeUnixNano : observedMs > 0 ? record.observedTimeUnixNano : undefined;
  const timeMs = timeSource === undefined ? receivedAtMs : ownTimeMs > 0 ? ownTimeMs : observedMs;
  const severityNumber = record.severityNumber ?? 0;
  if (severityNumber < 0) return { ok: false, message: 'log.severityNumber must be >= 0' };
  if (severityNumber > maxSeverityNumber) return { ok: false, message: `log.severityNumber must be <= ${maxSeverityNumber}` };
  if (timeMs < window.oldestMs) return { ok: false, message: 'log.time is older than the retention period' };
  if (timeMs > window.newestMs) return { ok: false, message: 'log.time is more than an hour in the future' };

  const cuts = new Cuts();
  const severityText = record.severityText ? cuts.bounded(record.severityText, textBounds.severityText) : null;
  const value = jsonValue(record.body);
  const { body, bodyJson, truncated } = storedBody(typeof value === 'string' ? cuts.bounded(value, textBounds.body) : value);
  cuts.count += truncated;
  const attributes = attributeMap(record.attributes);
  const tenant = attributes.get('tenant.id') ?? owner.tenant;
  const free = boundedAttributes(attributes, mappedAttributes);
  const { resource } = owner;
  const row: NewLogRecord = {
    time_ms: timeMs,
    time_ns: timeSource === undefined ? 0 : nanosWithinMs(timeSource),
    observed_ms: observedMs > 0 ? observedMs : timeMs,
    severity_number: inferSeverityNumber(severityNumber || undefined, severityText ?? undefined),
    severity_text: severityText,
    body,
    body_json: bodyJson,
    event_name: record.eventName ? cuts.bounded(record.eventName, textBounds.eventName) : null,
    service: resource.service,
    environment: resource.environment,
    service_version: resource.version ?? null,
    instance: resource.instance ?? null,
    scope_name: scope?.name ? cuts.bounded(scope.name, textBounds.scopeName) : null,
    scope_version: scope?.version ? cuts.bounded(scope.version, textBounds.scopeVersion) : null,
    trace_id: traceId,
    span_id: spanId,
    flags: (record.flags ?? 0) & traceFlagsMask,
    tenant_id: tenant !== undefined && tenant !== '' ? cuts.bounded(String(tenant), textBounds.tenantId) : null,
    attributes: free ? JSON.stringify(free) : null,
    resource_attributes: owner.resourceAttributes,
  };
  return { ok: true, row, truncated: cuts.count };
}

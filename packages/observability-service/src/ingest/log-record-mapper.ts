import { inferSeverityNumber, type NewLogRecord } from '../logs/index.js';
import type { AcceptanceWindow } from './occurrence-mapper.js';
import type { ProtocolLogRecord, ProtocolResource } from './protocol-types.js';

/** A structured body's JSON text is stored up to this many characters (beyond: as that text, cut). */
export const maxStructuredBodyLength = 65_536;

export type MappedLogRecord = { ok: true; row: NewLogRecord; truncated: number } | { ok: false; message: string };

const fractionDigits = /\.(\d+)(?:Z|[+-]\d{2}:?\d{2})$/i;

/** The nanoseconds beyond the millisecond a timestamp's fraction spells (digits past the ninth ignored). */
function subMillisecondNanos(timestamp: string): number {
  const digits = fractionDigits.exec(timestamp)?.[1];
  return digits && digits.length > 3 ? Number(digits.slice(3, 9).padEnd(6, '0')) : 0;
}

/** A body as stored: strings as they are, other JSON values as their JSON text (bounded). */
export function storedBody(body: unknown): { body: string | null; bodyJson: number; truncated: number } {
  if (body === undefined || body === null) return { body: null, bodyJson: 0, truncated: 0 };
  if (typeof body === 'string') return { body, bodyJson: 0, truncated: 0 };
  const text = JSON.stringify(body);
  if (text.length <= maxStructuredBodyLength) return { body: text, bodyJson: 1, truncated: 0 };
  return { body: text.slice(0, maxStructuredBodyLength), bodyJson: 0, truncated: 1 };
}

/** Turns a validated protocol v1 log record into a storage row, or refuses it for its time (OTLP records take otlp-log-rows.ts). */
export function mapLogRecord(resource: ProtocolResource, log: ProtocolLogRecord, window: AcceptanceWindow, resourceAttributes: string | null = null): MappedLogRecord {
  const timeMs = Date.parse(log.time);
  if (!Number.isFinite(timeMs)) return { ok: false, message: 'log.time is not a valid date-time' };
  if (timeMs < window.oldestMs) return { ok: false, message: 'log.time is older than the retention period' };
  if (timeMs > window.newestMs) return { ok: false, message: 'log.time is more than an hour in the future' };
  const observedMs = log.observedAt === undefined ? timeMs : Date.parse(log.observedAt);
  const { body, bodyJson, truncated } = storedBody(log.body);
  return {
    ok: true,
    truncated,
    row: {
      time_ms: timeMs,
      time_ns: subMillisecondNanos(log.time),
      observed_ms: Number.isFinite(observedMs) ? observedMs : timeMs,
      severity_number: inferSeverityNumber(log.severityNumber, log.severityText),
      severity_text: log.severityText ?? null,
      body,
      body_json: bodyJson,
      event_name: log.eventName ?? null,
      service: resource.service,
      environment: resource.environment,
      service_version: resource.version ?? null,
      instance: resource.instance ?? null,
      scope_name: log.scope?.name ?? null,
      scope_version: log.scope?.version ?? null,
      trace_id: log.traceId?.toLowerCase() ?? null,
      span_id: log.spanId?.toLowerCase() ?? null,
      flags: 0,
      tenant_id: log.tenantId ?? null,
      attributes: log.attributes && Object.keys(log.attributes).length > 0 ? JSON.stringify(log.attributes) : null,
      resource_attributes: resourceAttributes,
    },
  };
}

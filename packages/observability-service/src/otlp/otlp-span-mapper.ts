import type { AttributeValue, OccurrenceKind, ProtocolResource } from '../ingest/protocol-types.js';

/** An OTLP/JSON `AnyValue`. */
interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
  kvlistValue?: { values?: KeyValue[] };
  bytesValue?: string;
}
interface KeyValue {
  key: string;
  value?: AnyValue;
}

/** OTLP span kinds (the JSON encoding uses the enum's integers). */
const kinds: Record<number, OccurrenceKind> = { 0: 'internal', 1: 'internal', 2: 'server', 3: 'client', 4: 'producer', 5: 'consumer' };
const kindNames: Record<string, OccurrenceKind> = {
  SPAN_KIND_UNSPECIFIED: 'internal',
  SPAN_KIND_INTERNAL: 'internal',
  SPAN_KIND_SERVER: 'server',
  SPAN_KIND_CLIENT: 'client',
  SPAN_KIND_PRODUCER: 'producer',
  SPAN_KIND_CONSUMER: 'consumer',
};
const statusError = 2;

/** Attributes that become protocol fields instead of free attributes (old and current names). */
const mappedAttributes = new Set([
  'tenant.id', 'http.request.method', 'http.method', 'http.route', 'http.response.status_code', 'http.status_code',
  'db.system.name', 'db.system', 'db.query.text', 'db.statement', 'db.operation.name', 'db.operation',
  'peer.service', 'server.address', 'server.port', 'net.peer.name', 'net.peer.port', 'error.type',
]);
const maxFreeAttributes = 64;

function scalar(value: AnyValue | undefined): AttributeValue | undefined {
  if (!value) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  // Arrays and maps have no protocol v1 equivalent; keeping their JSON keeps the information.
  if (value.arrayValue !== undefined || value.kvlistValue !== undefined) return JSON.stringify(value.arrayValue ?? value.kvlistValue);
  return value.bytesValue;
}

function attributeMap(list: unknown): Map<string, AttributeValue> {
  const map = new Map<string, AttributeValue>();
  if (!Array.isArray(list)) return map;
  for (const entry of list as KeyValue[]) {
    if (entry === null || typeof entry !== 'object' || typeof entry.key !== 'string') continue;
    const value = scalar(entry.value);
    if (value !== undefined) map.set(entry.key, value);
  }
  return map;
}

function text(value: AttributeValue | undefined): string | undefined {
  return value === undefined ? undefined : String(value);
}

function nanosToMs(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value / 1e6;
  if (typeof value === 'string' && /^\d{1,20}$/.test(value)) {
    const nanos = BigInt(value);
    return Number(nanos / 1_000_000n) + Number(nanos % 1_000_000n) / 1e6;
  }
  return undefined;
}

/** The protocol resource an OTLP resource describes (`service.name`, `deployment.environment[.name]`, ...). */
export function mapOtlpResource(resource: unknown): ProtocolResource {
  const attributes = attributeMap((resource as { attributes?: unknown } | undefined)?.attributes);
  const mapped: ProtocolResource = {
    service: text(attributes.get('service.name')) || 'unknown_service',
    environment: text(attributes.get('deployment.environment.name') ?? attributes.get('deployment.environment')) || 'default',
  };
  const version = text(attributes.get('service.version'));
  const instance = text(attributes.get('service.instance.id'));
  if (version) mapped.version = version;
  if (instance) mapped.instance = instance;
  return mapped;
}

/**
 * A protocol v1 occurrence (unvalidated: the envelope validator checks it next) from an OTLP/JSON
 * span, following the OpenTelemetry semantic conventions, current names first then the older ones.
 */
export function mapOtlpSpan(span: Record<string, unknown>): Record<string, unknown> {
  const attributes = attributeMap(span.attributes);
  const start = nanosToMs(span.startTimeUnixNano);
  const end = nanosToMs(span.endTimeUnixNano);
  const kind = typeof span.kind === 'string' ? kindNames[span.kind] : kinds[Number(span.kind ?? 0)];
  const status = span.status as { code?: number | string; message?: string } | undefined;
  const isError = status?.code === statusError || status?.code === 'STATUS_CODE_ERROR';
  const occurrence: Record<string, unknown> = {
    traceId: span.traceId,
    spanId: span.spanId,
    operation: span.name,
    kind: kind ?? span.kind,
    startedAt: start === undefined ? span.startTimeUnixNano : new Date(start).toISOString(),
    durationMs: start === undefined || end === undefined ? undefined : Math.max(0, end - start),
    status: isError ? 'error' : 'ok',
  };
  if (typeof span.parentSpanId === 'string' && span.parentSpanId !== '') occurrence.parentSpanId = span.parentSpanId;

  const tenantId = text(attributes.get('tenant.id'));
  if (tenantId) occurrence.tenantId = tenantId;
  const method = text(attributes.get('http.request.method') ?? attributes.get('http.method'));
  if (method) {
    const http: Record<string, unknown> = { method };
    const route = text(attributes.get('http.route'));
    const statusCode = attributes.get('http.response.status_code') ?? attributes.get('http.status_code');
    if (route) http.route = route;
    if (statusCode !== undefined) http.statusCode = Number(statusCode);
    occurrence.http = http;
  }
  const dbSystem = text(attributes.get('db.system.name') ?? attributes.get('db.system'));
  if (dbSystem) {
    const db: Record<string, unknown> = { system: dbSystem };
    const statement = text(attributes.get('db.query.text') ?? attributes.get('db.statement'));
    const operation = text(attributes.get('db.operation.name') ?? attributes.get('db.operation'));
    if (statement) db.statement = statement;
    if (operation) db.operation = operation;
    occurrence.db = db;
  }
  const peerService = text(attributes.get('peer.service'));
  const host = text(attributes.get('server.address') ?? attributes.get('net.peer.name'));
  const port = text(attributes.get('server.port') ?? attributes.get('net.peer.port'));
  if (peerService || host) {
    const peer: Record<string, unknown> = {};
    if (peerService) peer.service = peerService;
    if (host) peer.address = port ? `${host}:${port}` : host;
    occurrence.peer = peer;
  }
  const error = errorOf(span, attributes, isError ? status?.message : undefined);
  if (error) occurrence.error = error;

  const free: Record<string, AttributeValue> = {};
  let count = 0;
  for (const [key, value] of attributes) {
    if (mappedAttributes.has(key) || count >= maxFreeAttributes) continue;
    free[key] = value;
    count += 1;
  }
  if (count > 0) occurrence.attributes = free;
  return occurrence;
}

/** The error an `exception` event, `error.type` or an error status message describes. */
function errorOf(span: Record<string, unknown>, attributes: Map<string, AttributeValue>, statusMessage: string | undefined): Record<string, string> | undefined {
  const events = Array.isArray(span.events) ? (span.events as Array<{ name?: unknown; attributes?: unknown }>) : [];
  const exception = events.find((event) => event?.name === 'exception');
  const details = attributeMap(exception?.attributes);
  const error: Record<string, string> = {};
  const type = text(details.get('exception.type') ?? attributes.get('error.type'));
  const message = text(details.get('exception.message')) ?? statusMessage;
  const stack = text(details.get('exception.stacktrace'));
  if (type) error.type = type;
  if (message) error.message = message;
  if (stack) error.stack = stack;
  return Object.keys(error).length > 0 ? error : undefined;
}

import type { OccurrenceExtras } from '../ingest/envelope-ingestor.js';
import type { AttributeValue, OccurrenceKind, ProtocolResource } from '../ingest/protocol-types.js';
import { attributeMap, boundedAttributes, cut, elapsedMs, nanosToMs, nanosToWholeMs, type Int64, type OtlpKeyValue } from './otlp-values.js';

/** `opentelemetry.proto.trace.v1.Span` as decoded (ids are bytes in every encoding by then). */
export interface OtlpSpan {
  traceId?: Uint8Array;
  spanId?: Uint8Array;
  parentSpanId?: Uint8Array;
  name?: string;
  kind?: number;
  startTimeUnixNano?: Int64;
  endTimeUnixNano?: Int64;
  attributes?: OtlpKeyValue[];
  events?: Array<{ timeUnixNano?: Int64; name?: string; attributes?: OtlpKeyValue[] }>;
  links?: Array<{ traceId?: Uint8Array; spanId?: Uint8Array; traceState?: string; attributes?: OtlpKeyValue[] }>;
  status?: { code?: number; message?: string } | null;
}

/** `opentelemetry.proto.resource.v1.Resource` as decoded. */
export interface OtlpResource {
  attributes?: OtlpKeyValue[];
}

/** OTLP span kinds by the enum's numbers (UNSPECIFIED is treated as INTERNAL, as the specification says). */
const kinds: Record<number, OccurrenceKind> = { 0: 'internal', 1: 'internal', 2: 'server', 3: 'client', 4: 'producer', 5: 'consumer' };
const statusCodeError = 2;
const traceIdBytes = 16;
const spanIdBytes = 8;
/** Events and links kept per span: the OpenTelemetry SDKs' default span limits. */
export const maxEventsPerSpan = 128;
export const maxLinksPerSpan = 128;
const maxEventNameLength = 256;
const maxTraceStateLength = 512;

/** Resource attributes that become the protocol resource's fields. */
const resourceFields = new Set(['service.name', 'deployment.environment.name', 'deployment.environment', 'service.version', 'service.instance.id']);

/** Span attributes that become protocol fields instead of free attributes (current and older names). */
const mappedAttributes = new Set([
  'tenant.id', 'http.request.method', 'http.method', 'http.route', 'http.response.status_code', 'http.status_code',
  'db.system.name', 'db.system', 'db.query.text', 'db.statement', 'db.operation.name', 'db.operation',
  'peer.service', 'server.address', 'server.port', 'net.peer.name', 'net.peer.port', 'error.type',
]);

function text(value: AttributeValue | undefined): string | undefined {
  return value === undefined ? undefined : String(value);
}

/** Bytes as lowercase hex ('' for none). */
export function hexId(bytes: Uint8Array | undefined): string {
  if (!bytes || bytes.length === 0) return '';
  // protobufjs hands Buffers out in Node; a view is made only for other byte arrays.
  return (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)).toString('hex');
}

/** The protocol resource an OTLP resource describes, and its other attributes (JSON text, or null). */
export function mapOtlpResource(resource: OtlpResource | null | undefined): { resource: ProtocolResource; otherAttributes: string | null } {
  const attributes = attributeMap(resource?.attributes);
  const mapped: ProtocolResource = {
    service: text(attributes.get('service.name')) || 'unknown_service',
    environment: text(attributes.get('deployment.environment.name') ?? attributes.get('deployment.environment')) || 'default',
  };
  const version = text(attributes.get('service.version'));
  const instance = text(attributes.get('service.instance.id'));
  if (version) mapped.version = version;
  if (instance) mapped.instance = instance;
  const others = boundedAttributes(attributes, resourceFields);
  return { resource: mapped, otherAttributes: others ? JSON.stringify(others) : null };
}

export type MappedSpan = { ok: true; occurrence: Record<string, unknown>; extras: OccurrenceExtras } | { ok: false; message: string };

/**
 * A protocol v1 occurrence (unvalidated: the envelope validator checks it next) and the span's
 * events and links, from an OTLP span of any encoding. Semantic conventions: current names
 * first, then the older ones. Ids of the wrong length refuse the span.
 */
export function mapOtlpSpan(span: OtlpSpan): MappedSpan {
  const idProblem = checkIds(span);
  if (idProblem) return { ok: false, message: idProblem };
  const attributes = attributeMap(span.attributes);
  const kind = kinds[span.kind ?? 0];
  const isError = span.status?.code === statusCodeError;
  const parentSpanId = hexId(span.parentSpanId);
  const occurrence: Record<string, unknown> = {
    traceId: hexId(span.traceId),
    spanId: hexId(span.spanId),
    operation: span.name ?? '',
    kind: kind ?? `unknown (${span.kind})`,
    startedAt: new Date(nanosToWholeMs(span.startTimeUnixNano)).toISOString(),
    durationMs: elapsedMs(span.startTimeUnixNano, span.endTimeUnixNano),
    status: isError ? 'error' : 'ok',
  };
  if (parentSpanId !== '') occurrence.parentSpanId = parentSpanId;

  const tenantId = text(attributes.get('tenant.id'));
  if (tenantId) occurrence.tenantId = tenantId;
  const http = httpOf(attributes);
  if (http) occurrence.http = http;
  const db = dbOf(attributes);
  if (db) occurrence.db = db;
  const peer = kind === 'client' || kind === 'producer' ? peerOf(attributes) : undefined;
  if (peer) occurrence.peer = peer;
  const error = errorOf(span, attributes, isError ? span.status?.message : undefined);
  if (error) occurrence.error = error;
  const free = boundedAttributes(attributes, mappedAttributes);
  if (free) occurrence.attributes = free;
  return { ok: true, occurrence, extras: { events: eventsOf(span), links: linksOf(span) } };
}

function checkIds(span: OtlpSpan): string | undefined {
  if (span.traceId?.length !== traceIdBytes) return `traceId must be ${traceIdBytes} bytes (${traceIdBytes * 2} hex characters in JSON); it has ${span.traceId?.length ?? 0}`;
  if (span.spanId?.length !== spanIdBytes) return `spanId must be ${spanIdBytes} bytes (${spanIdBytes * 2} hex characters in JSON); it has ${span.spanId?.length ?? 0}`;
  const parent = span.parentSpanId?.length ?? 0;
  if (parent !== 0 && parent !== spanIdBytes) return `parentSpanId must be empty or ${spanIdBytes} bytes; it has ${parent}`;
  for (const [index, link] of (span.links ?? []).entries()) {
    if (link.traceId?.length !== traceIdBytes || link.spanId?.length !== spanIdBytes) {
      return `links[${index}] needs a ${traceIdBytes}-byte traceId and an ${spanIdBytes}-byte spanId`;
    }
  }
  return undefined;
}

function httpOf(attributes: Map<string, AttributeValue>): Record<string, unknown> | undefined {
  const method = text(attributes.get('http.request.method') ?? attributes.get('http.method'));
  if (!method) return undefined;
  const http: Record<string, unknown> = { method };
  const route = text(attributes.get('http.route'));
  const statusCode = attributes.get('http.response.status_code') ?? attributes.get('http.status_code');
  if (route) http.route = route;
  if (statusCode !== undefined) http.statusCode = Number(statusCode);
  return http;
}

function dbOf(attributes: Map<string, AttributeValue>): Record<string, unknown> | undefined {
  const system = text(attributes.get('db.system.name') ?? attributes.get('db.system'));
  if (!system) return undefined;
  const db: Record<string, unknown> = { system };
  const statement = text(attributes.get('db.query.text') ?? attributes.get('db.statement'));
  const operation = text(attributes.get('db.operation.name') ?? attributes.get('db.operation'));
  if (statement) db.statement = statement;
  if (operation) db.operation = operation;
  return db;
}

/** The host of a URL attribute (`url.full`, `http.url`), for client spans that name no server. */
function urlHost(value: AttributeValue | undefined): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    return new URL(value).host || undefined;
  } catch {
    return undefined;
  }
}

/** The remote side of a client or producer span. */
function peerOf(attributes: Map<string, AttributeValue>): Record<string, unknown> | undefined {
  const service = text(attributes.get('peer.service'));
  const host = text(attributes.get('server.address') ?? attributes.get('net.peer.name') ?? attributes.get('network.peer.address'));
  const port = text(attributes.get('server.port') ?? attributes.get('net.peer.port') ?? attributes.get('network.peer.port'));
  const address = host ? (port ? `${host}:${port}` : host) : urlHost(attributes.get('url.full') ?? attributes.get('http.url'));
  if (!service && !address) return undefined;
  const peer: Record<string, unknown> = {};
  if (service) peer.service = service;
  if (address) peer.address = address;
  return peer;
}

/** The error an `exception` event, `error.type` or an error status message describes. */
function errorOf(span: OtlpSpan, attributes: Map<string, AttributeValue>, statusMessage: string | undefined): Record<string, string> | undefined {
  const exception = span.events?.find((event) => event.name === 'exception');
  const details = attributeMap(exception?.attributes);
  const error: Record<string, string> = {};
  const type = text(details.get('exception.type') ?? attributes.get('error.type'));
  const message = text(details.get('exception.message')) || statusMessage;
  const stack = text(details.get('exception.stacktrace'));
  if (type) error.type = type;
  if (message) error.message = message;
  if (stack) error.stack = stack;
  return Object.keys(error).length > 0 ? error : undefined;
}

function eventsOf(span: OtlpSpan): string | null {
  const events = span.events ?? [];
  if (events.length === 0) return null;
  return JSON.stringify(
    events.slice(0, maxEventsPerSpan).map((event) => {
      const stored: Record<string, unknown> = { name: cut(event.name ?? '', maxEventNameLength), timeMs: nanosToMs(event.timeUnixNano) };
      const attributes = boundedAttributes(attributeMap(event.attributes));
      if (attributes) stored.attributes = attributes;
      return stored;
    }),
  );
}

function linksOf(span: OtlpSpan): string | null {
  const links = span.links ?? [];
  if (links.length === 0) return null;
  return JSON.stringify(
    links.slice(0, maxLinksPerSpan).map((link) => {
      const stored: Record<string, unknown> = { traceId: hexId(link.traceId), spanId: hexId(link.spanId) };
      if (link.traceState) stored.traceState = cut(link.traceState, maxTraceStateLength);
      const attributes = boundedAttributes(attributeMap(link.attributes));
      if (attributes) stored.attributes = attributes;
      return stored;
    }),
  );
}

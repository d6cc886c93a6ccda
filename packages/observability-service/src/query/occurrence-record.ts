import type { Selectable } from 'kysely';
import type { OccurrencesTable } from '../storage/storage-tables.js';
import type { Occurrence } from './query-schemas.js';

/** A stored occurrence: the SQL store's row, or another store's with the same columns (its id may be text). */
export type OccurrenceRow = Omit<Selectable<OccurrencesTable>, 'id'> & { id: number | string };

type AttributeMap = NonNullable<Occurrence['attributes']>;

/** Stored JSON text, or null when absent or damaged (ingestion writes valid JSON; a damaged row still shows the rest). */
export function parseJson(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/** Stored attributes JSON text as a map, or null. */
export function parseAttributes(text: string | null): AttributeMap | null {
  const value = parseJson(text);
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as AttributeMap) : null;
}

interface StoredEvent {
  name: string;
  timeMs: number;
  attributes?: AttributeMap;
}
interface StoredLink {
  traceId: string;
  spanId: string;
  traceState?: string;
  attributes?: AttributeMap;
}

function parseArray<T>(text: string | null): T[] | null {
  const value = parseJson(text);
  return Array.isArray(value) ? (value as T[]) : null;
}

function eventsOf(row: OccurrenceRow): Occurrence['events'] {
  const startedAt = Number(row.started_at);
  return (
    parseArray<StoredEvent>(row.events)?.map((event) => ({
      name: event.name,
      time: new Date(event.timeMs).toISOString(),
      offsetMs: event.timeMs - startedAt,
      attributes: event.attributes ?? null,
    })) ?? null
  );
}

function linksOf(row: OccurrenceRow): Occurrence['links'] {
  return (
    parseArray<StoredLink>(row.links)?.map((link) => ({
      traceId: link.traceId,
      spanId: link.spanId,
      traceState: link.traceState ?? null,
      attributes: link.attributes ?? null,
    })) ?? null
  );
}

/** A stored occurrence in the shape the API serves (the protocol's names, ISO timestamps). */
export function occurrenceFromRow(row: OccurrenceRow): Occurrence {
  const hasHttp = row.http_method !== null || row.http_route !== null || row.http_status_code !== null;
  const hasDb = row.db_system !== null || row.db_statement !== null || row.db_operation !== null;
  const hasPeer = row.peer_service !== null || row.peer_address !== null;
  const hasError = row.error_type !== null || row.error_message !== null || row.error_stack !== null;
  return {
    id: String(row.id),
    clientId: row.client_id,
    traceId: row.trace_id,
    spanId: row.span_id,
    parentSpanId: row.parent_span_id,
    service: row.service,
    environment: row.environment,
    serviceVersion: row.service_version,
    instance: row.instance,
    operation: row.operation,
    kind: row.kind,
    startedAt: new Date(Number(row.started_at)).toISOString(),
    durationMs: Number(row.duration_ms),
    status: row.status,
    tenantId: row.tenant_id,
    http: hasHttp ? { method: row.http_method, route: row.http_route, statusCode: row.http_status_code === null ? null : Number(row.http_status_code) } : null,
    db: hasDb ? { system: row.db_system, statement: row.db_statement, operation: row.db_operation } : null,
    peer: hasPeer ? { service: row.peer_service, address: row.peer_address } : null,
    error: hasError ? { type: row.error_type, message: row.error_message, stack: row.error_stack } : null,
    errorGroupId: row.error_group_id,
    attributes: parseAttributes(row.attributes),
    resourceAttributes: parseAttributes(row.resource_attributes),
    events: eventsOf(row),
    links: linksOf(row),
    receivedAt: new Date(Number(row.received_at)).toISOString(),
  };
}

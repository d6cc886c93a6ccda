import type { NewOccurrence } from '../storage/storage-tables.js';
import type { ProtocolOccurrence, ProtocolResource } from './protocol-types.js';
import { normalizeStatement, statementHash, statementVerb } from './statement-normalizer.js';

/** How far ahead of the server's clock an occurrence may start (sender clock skew). */
export const maxClockSkewMs = 60 * 60 * 1000;

/** The window an occurrence's start must fall in to be stored. */
export interface AcceptanceWindow {
  /** Older starts would be pruned at once by retention. */
  oldestMs: number;
  newestMs: number;
}

export type MappedOccurrence = { ok: true; row: NewOccurrence } | { ok: false; message: string };

/** JSON text stored beside the protocol's fields (OTLP fills it; protocol v1 has none). */
export interface StoredExtras {
  resourceAttributes: string | null;
  events: string | null;
  links: string | null;
}

const noExtras: StoredExtras = { resourceAttributes: null, events: null, links: null };

/** The collection a MongoDB span names (current and older semantic-convention names). */
function collectionOf(attributes: Readonly<Record<string, unknown>> | null | undefined): string | undefined {
  const named = attributes?.['db.collection.name'] ?? attributes?.['db.mongodb.collection'];
  return typeof named === 'string' ? named : undefined;
}

/** A statement's shape and the hash its database rollup is keyed by. */
export interface StatementShape {
  normalized: string;
  hash: string;
}

/** The shape of a database span's statement by its system (see statement-normalizer.ts). */
export function statementShapeOf(system: string, statement: string, attributes: Readonly<Record<string, unknown>> | null | undefined): StatementShape {
  const normalized = normalizeStatement(system, statement, { collection: collectionOf(attributes) });
  return { normalized, hash: statementHash(normalized) };
}

/** Turns a validated protocol occurrence into a storage row, or refuses it for its time. */
export function mapOccurrence(resource: ProtocolResource, occurrence: ProtocolOccurrence, window: AcceptanceWindow, extras: StoredExtras = noExtras): MappedOccurrence {
  const startedAt = Date.parse(occurrence.startedAt);
  if (!Number.isFinite(startedAt)) return { ok: false, message: 'occurrence.startedAt is not a valid date-time' };
  if (startedAt < window.oldestMs) return { ok: false, message: 'occurrence.startedAt is older than the retention period' };
  if (startedAt > window.newestMs) return { ok: false, message: 'occurrence.startedAt is more than an hour in the future' };
  const db = occurrence.db;
  const shape = db?.statement === undefined ? undefined : statementShapeOf(db.system, db.statement, occurrence.attributes);
  const normalized = shape?.normalized;
  return {
    ok: true,
    row: {
      client_id: occurrence.id ?? null,
      trace_id: occurrence.traceId.toLowerCase(),
      span_id: occurrence.spanId.toLowerCase(),
      parent_span_id: occurrence.parentSpanId?.toLowerCase() ?? null,
      service: resource.service,
      environment: resource.environment,
      service_version: resource.version ?? null,
      instance: resource.instance ?? null,
      operation: occurrence.operation,
      kind: occurrence.kind,
      started_at: startedAt,
      duration_ms: occurrence.durationMs,
      status: occurrence.status,
      tenant_id: occurrence.tenantId ?? null,
      http_method: occurrence.http?.method ?? null,
      http_route: occurrence.http?.route ?? null,
      http_status_code: occurrence.http?.statusCode ?? null,
      db_system: db?.system ?? null,
      db_statement: db?.statement ?? null,
      normalized_statement: normalized ?? null,
      db_statement_hash: shape?.hash ?? null,
      db_operation: db ? (db.operation ?? (normalized === undefined ? undefined : statementVerb(normalized)) ?? null) : null,
      peer_service: occurrence.peer?.service ?? null,
      peer_address: occurrence.peer?.address ?? null,
      error_type: occurrence.error?.type ?? null,
      error_message: occurrence.error?.message ?? null,
      error_stack: occurrence.error?.stack ?? null,
      attributes: occurrence.attributes && Object.keys(occurrence.attributes).length > 0 ? JSON.stringify(occurrence.attributes) : null,
      resource_attributes: extras.resourceAttributes,
      events: extras.events,
      links: extras.links,
    },
  };
}

import { randomBytes } from 'node:crypto';
import { errorGroupOf } from '../../errors/error-group-merge.js';
import { bucketIndexOf } from '../../storage/latency-histogram.js';
import { spanRoleOf } from '../../storage/span-role.js';
import type { NewOccurrence } from '../../storage/storage-tables.js';
import { dayMs } from '../../time-units.js';
import { RowBinaryWriter } from './row-binary-writer.js';

/** Random bytes per occurrence id. */
const idRandomBytes = 8;

/** The UTC date (`YYYY-MM-DD`) of an epoch-ms timestamp: the day partition its rows go to. */
export function dayOf(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10);
}

/** The columns `occurrenceRowsBinary` writes, in its order (the insert names them). */
export const occurrenceInsertColumns = [
  'day', 'id', 'client_id', 'trace_id', 'span_id', 'parent_span_id', 'service', 'environment', 'service_version', 'instance',
  'operation', 'kind', 'span_role', 'started_at', 'duration_ms', 'latency_bucket', 'status', 'is_error', 'has_tenant', 'has_statement',
  'tenant_id', 'http_method', 'http_route', 'http_status_code', 'db_system', 'db_statement', 'db_statement_hash', 'normalized_statement',
  'db_operation', 'peer_service', 'peer_address', 'error_type', 'error_message', 'error_stack', 'error_group_id', 'attributes',
  'resource_attributes', 'events', 'links', 'received_at',
] as const;

/**
 * The occurrences as one RowBinary body in `occurrenceInsertColumns` order: one buffer per batch,
 * no object or text per row (JSONEachRow's objects and per-row JSON.stringify were the write
 * path's main cost, and parsing text the server's), received at `receivedAt` unless a row says
 * when. Each gets a new id: its start (ms, base 36) and 8 random bytes, so ids from several
 * writers never collide and an id names the day partition it lives in.
 */
export function occurrenceRowsBinary(rows: readonly NewOccurrence[], receivedAt: number): Buffer {
  const random = randomBytes(rows.length * idRandomBytes);
  const out = new RowBinaryWriter();
  for (let index = 0; index < rows.length; index++) {
    const row = rows[index]!;
    out.date(Math.floor(row.started_at / dayMs));
    out.string(`${Math.floor(row.started_at).toString(36)}-${random.toString('hex', index * idRandomBytes, (index + 1) * idRandomBytes)}`);
    out.nullableString(row.client_id);
    out.string(row.trace_id);
    out.string(row.span_id);
    out.nullableString(row.parent_span_id);
    out.string(row.service);
    out.string(row.environment);
    out.nullableString(row.service_version);
    out.nullableString(row.instance);
    out.string(row.operation);
    out.string(row.kind);
    out.string(spanRoleOf(row.kind, row.parent_span_id));
    out.float64(row.started_at);
    out.float64(row.duration_ms);
    out.uint16(bucketIndexOf(row.duration_ms));
    out.string(row.status);
    out.uint8(row.status === 'error' ? 1 : 0);
    out.uint8(row.tenant_id === null ? 0 : 1);
    out.uint8(row.db_system !== null && row.db_statement_hash !== null && row.normalized_statement !== null ? 1 : 0);
    out.nullableString(row.tenant_id);
    out.nullableString(row.http_method);
    out.nullableString(row.http_route);
    out.nullableUint16(row.http_status_code);
    out.nullableString(row.db_system);
    out.nullableString(row.db_statement);
    out.nullableString(row.db_statement_hash);
    out.nullableString(row.normalized_statement);
    out.nullableString(row.db_operation);
    out.nullableString(row.peer_service);
    out.nullableString(row.peer_address);
    out.nullableString(row.error_type);
    out.nullableString(row.error_message);
    out.nullableString(row.error_stack);
    out.nullableString(errorGroupOf(row)?.groupId ?? null);
    out.nullableString(row.attributes);
    out.nullableString(row.resource_attributes);
    out.nullableString(row.events);
    out.nullableString(row.links);
    out.uint64(row.received_at ?? receivedAt);
  }
  return out.bytes();
}

import type { Kysely } from 'kysely';
import type { ExportedOccurrence, OccurrencesTable, TelemetryDatabase } from './storage-tables.js';
import { splitPosition, type ExportBatches, type ExportRequest } from './telemetry-export.js';

/** The columns an exported occurrence carries, in every store (its id only makes its position). */
export const exportedOccurrenceColumns = [
  'id', 'client_id', 'trace_id', 'span_id', 'parent_span_id', 'service', 'environment', 'service_version', 'instance',
  'operation', 'kind', 'started_at', 'duration_ms', 'status', 'tenant_id', 'http_method', 'http_route',
  'http_status_code', 'db_system', 'db_statement', 'db_statement_hash', 'db_operation', 'peer_service',
  'peer_address', 'error_type', 'error_message', 'error_stack', 'attributes', 'resource_attributes', 'events', 'links',
  'received_at',
] as const satisfies ReadonlyArray<keyof OccurrencesTable>;

/** `<started_at>:<id>`: the keyset the SQL store's occurrences are exported in. */
function positionOf(startedAt: number, id: number): string {
  return `${startedAt}:${id}`;
}

function parsePosition(position: string): { startedAt: number; id: number } {
  const { time, key } = splitPosition(position);
  return { startedAt: time, id: Number(key) };
}

/**
 * The SQL store's occurrences of a range in (start, id) order, `batchRows` at a time: keyset
 * pages over the `started_at` index (whose entries end with the row id on SQLite), so each
 * batch costs the rows it returns, whatever the table holds.
 */
export async function* exportSqlOccurrences(db: Kysely<TelemetryDatabase>, request: ExportRequest): ExportBatches<ExportedOccurrence> {
  let after = request.after === undefined ? undefined : parsePosition(request.after);
  const through = request.through === undefined ? undefined : parsePosition(request.through);
  for (;;) {
    let query = db.selectFrom('occurrences').select(exportedOccurrenceColumns).where('started_at', '>=', request.fromMs).where('started_at', '<', request.toMs);
    if (after) {
      const { startedAt, id } = after;
      query = query.where('started_at', '>=', startedAt).where((eb) => eb.or([eb('started_at', '>', startedAt), eb('id', '>', id)]));
    }
    if (through) {
      const { startedAt, id } = through;
      query = query.where('started_at', '<=', startedAt).where((eb) => eb.or([eb('started_at', '<', startedAt), eb('id', '<=', id)]));
    }
    const rows = await query.orderBy('started_at').orderBy('id').limit(request.batchRows).execute();
    if (rows.length === 0) return;
    yield rows.map(({ id, ...row }) => ({ row: { ...row, started_at: Number(row.started_at), received_at: Number(row.received_at) }, position: positionOf(Number(row.started_at), Number(id)) }));
    if (rows.length < request.batchRows) return;
    const last = rows[rows.length - 1]!;
    after = { startedAt: Number(last.started_at), id: Number(last.id) };
  }
}

import { ApiError } from '@playstack/server-kit';
import { occurrenceFromRow, type OccurrenceRow } from './occurrence-record.js';
import type { LookupResponse, Occurrence } from './query-schemas.js';
import type { ReadQuery } from './read-query.js';
import { buildTraceTree } from './trace-tree.js';
import './query-error-codes.js';

/** A trace renders at most this many spans (the earliest); `truncated` says when there are more. */
export const traceSpansMax = 10_000;

type TraceSpan = Occurrence & { depth: number; offsetMs: number; parentMissing: boolean };

export interface TraceView {
  traceId: string;
  startedAt: string;
  durationMs: number;
  services: string[];
  spanCount: number;
  truncated: boolean;
  spans: TraceSpan[];
}

async function countSpans(query: Pick<ReadQuery, 'db'>, traceId: string): Promise<number> {
  const counted = await query.db
    .selectFrom('occurrences')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('trace_id', '=', traceId)
    .executeTakeFirstOrThrow();
  return Number(counted.n);
}

/** Every stored occurrence of a trace, as a waterfall tree; 404 when none is stored. */
export async function traceView(query: Pick<ReadQuery, 'db'>, traceIdParam: string): Promise<TraceView> {
  const traceId = traceIdParam.toLowerCase();
  const rows = await query.db.selectFrom('occurrences').selectAll().where('trace_id', '=', traceId).orderBy('started_at').orderBy('id').limit(traceSpansMax).execute();
  return traceViewOf(traceId, rows, () => countSpans(query, traceId));
}

/**
 * The waterfall of a trace's rows (its earliest `traceSpansMax`, earliest first), whichever store
 * read them; `countSpans` is asked only when the rows hit the cap. 404 when there are none.
 */
export async function traceViewOf(traceId: string, rows: readonly OccurrenceRow[], countSpans: () => Promise<number>): Promise<TraceView> {
  if (rows.length === 0) throw new ApiError('trace-not-found', `No occurrence of trace ${traceId} is stored.`);
  const tree = buildTraceTree(
    rows.map((row) => ({ ...occurrenceFromRow(row), startedAtMs: Number(row.started_at) })),
  );
  // Below the cap the rows are the whole trace; only a capped read needs the count.
  const spanCount = rows.length < traceSpansMax ? rows.length : await countSpans();
  return {
    traceId,
    startedAt: new Date(tree.startedAtMs).toISOString(),
    durationMs: tree.durationMs,
    services: tree.services,
    spanCount,
    truncated: spanCount > rows.length,
    spans: tree.spans.map(({ startedAtMs: _startedAtMs, ...span }) => span),
  };
}

/**
 * What a pasted id names: a stored trace (32 hex digits) or a stored span (16; the newest when
 * several traces reuse it); 404 `trace-not-found` when nothing stored has it.
 */
export async function lookupId(query: Pick<ReadQuery, 'db'>, idParam: string): Promise<LookupResponse> {
  const id = idParam.toLowerCase();
  if (id.length === 32) {
    const row = await query.db.selectFrom('occurrences').select('trace_id').where('trace_id', '=', id).limit(1).executeTakeFirst();
    if (row) return { kind: 'trace', traceId: id, spanId: null, occurrenceId: null };
    throw new ApiError('trace-not-found', `No trace with the id ${id} is stored (it may not have been received, or retention has removed it).`);
  }
  const row = await query.db.selectFrom('occurrences').select(['id', 'trace_id']).where('span_id', '=', id).orderBy('started_at', 'desc').limit(1).executeTakeFirst();
  if (row) return { kind: 'span', traceId: row.trace_id, spanId: id, occurrenceId: String(row.id) };
  throw new ApiError('trace-not-found', `No span with the id ${id} is stored (it may not have been received, or retention has removed it).`);
}

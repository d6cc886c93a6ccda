import { ApiError } from '@playstack/server-kit';
import { occurrenceFromRow } from './occurrence-record.js';
import type { Occurrence } from './query-schemas.js';
import type { ReadQuery } from './read-query.js';
import { buildTraceTree } from './trace-tree.js';

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
  if (rows.length === 0) throw new ApiError('trace-not-found', `No occurrence of trace ${traceId} is stored.`);
  const tree = buildTraceTree(
    rows.map((row) => ({ ...occurrenceFromRow(row), startedAtMs: Number(row.started_at) })),
  );
  // Below the cap the rows are the whole trace; only a capped read needs the count.
  const spanCount = rows.length < traceSpansMax ? rows.length : await countSpans(query, traceId);
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

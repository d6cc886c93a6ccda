import type { Kysely } from 'kysely';
import type { TelemetryDatabase, NewOccurrence } from './storage-tables.js';

/** One call from a service to something else, with the figures it is counted with. */
export interface DependencyEdge {
  environment: string;
  sourceService: string;
  target: string;
  targetKind: 'service' | 'address' | 'database';
  startedAt: number;
  durationMs: number;
  isError: boolean;
}

/** What a span contributes to the parent/child edge search. */
interface SpanFacts {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  service: string;
  environment: string;
  /** Whether it already yields a peer edge (then its children do not add another). */
  hasPeer: boolean;
  startedAt: number;
  durationMs: number;
  isError: boolean;
}

const callerKinds = new Set(['client', 'producer']);

/**
 * What a span declares it calls: a client/producer span its `peer` (service, else address), a
 * client span on a database without a peer the database system; otherwise nothing.
 */
function declaredTarget(
  span: Pick<NewOccurrence, 'kind' | 'peer_service' | 'peer_address' | 'db_system'>,
): Pick<DependencyEdge, 'target' | 'targetKind'> | undefined {
  if (!callerKinds.has(span.kind)) return undefined;
  if (span.peer_service !== null) return { target: span.peer_service, targetKind: 'service' };
  if (span.peer_address !== null) return { target: span.peer_address, targetKind: 'address' };
  if (span.db_system !== null && span.kind === 'client') return { target: span.db_system, targetKind: 'database' };
  return undefined;
}

/** The edge a span declares itself (see `declaredTarget`), with the span's figures. */
export function declaredEdge(row: NewOccurrence): DependencyEdge | undefined {
  const declared = declaredTarget(row);
  if (!declared) return undefined;
  return { environment: row.environment, sourceService: row.service, startedAt: row.started_at, durationMs: row.duration_ms, isError: row.status === 'error', ...declared };
}

/** The columns a span is read with for the edge search, whether in the batch or stored. */
const spanColumns = [
  'trace_id', 'span_id', 'parent_span_id', 'service', 'environment', 'kind', 'peer_service', 'peer_address', 'db_system', 'started_at', 'duration_ms', 'status',
] as const satisfies ReadonlyArray<keyof NewOccurrence>;
type SpanColumns = Pick<NewOccurrence, (typeof spanColumns)[number]>;

function spanFactsOf(row: SpanColumns): SpanFacts {
  return {
    traceId: row.trace_id,
    spanId: row.span_id,
    parentSpanId: row.parent_span_id,
    service: row.service,
    environment: row.environment,
    hasPeer: declaredTarget(row) !== undefined,
    startedAt: Number(row.started_at),
    durationMs: row.duration_ms,
    isError: row.status === 'error',
  };
}

const traceLookupChunk = 500;

/**
 * Edges between a parent span and a child span of the same trace in different services, for
 * every such pair in which at least one span is in `batch`. The parent may have arrived in an
 * earlier envelope (or the child may have): the pair is counted by whichever transaction stores
 * the second of the two, which finds the first already stored. Writers are serialized, so every
 * pair is counted exactly once. A parent that already declares the call (a client span with
 * `peer`) does not add a second edge for it. The figures are the child's.
 */
export async function crossServiceEdges(db: Kysely<TelemetryDatabase>, batch: readonly NewOccurrence[]): Promise<DependencyEdge[]> {
  const batchSpans = batch.map(spanFactsOf);
  const traceIds = [...new Set(batchSpans.map((span) => span.traceId))];
  const storedSpans: SpanFacts[] = [];
  for (let offset = 0; offset < traceIds.length; offset += traceLookupChunk) {
    const rows = await db
      .selectFrom('occurrences')
      .select(spanColumns)
      .where('trace_id', 'in', traceIds.slice(offset, offset + traceLookupChunk))
      .execute();
    for (const row of rows) storedSpans.push(spanFactsOf(row));
  }

  const spanKey = (traceId: string, spanId: string) => `${traceId}/${spanId}`;
  const parentsByKey = new Map<string, SpanFacts>();
  for (const span of storedSpans) parentsByKey.set(spanKey(span.traceId, span.spanId), span);
  for (const span of batchSpans) parentsByKey.set(spanKey(span.traceId, span.spanId), span);
  const batchSpanKeys = new Set(batchSpans.map((span) => spanKey(span.traceId, span.spanId)));

  const edges: DependencyEdge[] = [];
  const edgeFor = (child: SpanFacts) => {
    if (child.parentSpanId === null) return;
    const parent = parentsByKey.get(spanKey(child.traceId, child.parentSpanId));
    if (!parent || parent.service === child.service || parent.hasPeer) return;
    edges.push({
      environment: child.environment,
      sourceService: parent.service,
      target: child.service,
      targetKind: 'service',
      startedAt: child.startedAt,
      durationMs: child.durationMs,
      isError: child.isError,
    });
  };
  // Children in the batch (parent stored earlier or in the batch), then stored children whose
  // parent is in the batch.
  for (const child of batchSpans) edgeFor(child);
  for (const child of storedSpans) {
    if (child.parentSpanId !== null && batchSpanKeys.has(spanKey(child.traceId, child.parentSpanId))) edgeFor(child);
  }
  return edges;
}

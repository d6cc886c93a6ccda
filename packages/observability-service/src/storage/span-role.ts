/**
 * What a span is to its service's figures. A service's request count, rate, error rate, latency
 * and Apdex count its entry spans: `server` and `consumer` spans, the work others ask of it. A
 * service with no entry span in a query's range (a worker, a batch job) counts its `root` spans
 * of kind `internal` instead: the units of work it starts itself. Everything else is a `child`:
 * outgoing calls (`client`, `producer`) and internal steps, which feed the operations list, the
 * database view and the dependencies.
 */
export type SpanRole = 'entry' | 'root' | 'child';

export const spanRoles: readonly SpanRole[] = ['entry', 'root', 'child'];

/** The role of a span of this kind, with or without a parent. */
export function spanRoleOf(kind: string, parentSpanId: string | null): SpanRole {
  if (kind === 'server' || kind === 'consumer') return 'entry';
  if (kind === 'internal' && parentSpanId === null) return 'root';
  return 'child';
}

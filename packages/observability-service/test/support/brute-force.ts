import type { NewOccurrence } from '../../src/storage/storage-tables.js';

/**
 * Reference answers computed straight from the generated rows, with nothing shared with the
 * service's query code: what every endpoint's figures must match.
 */

/** The nearest-rank quantile: the ceil(q * n)-th smallest value. */
export function exactQuantile(values: readonly number[], q: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1]!;
}

export interface Figures {
  count: number;
  errorCount: number;
  durations: number[];
}

export function figuresOf(rows: readonly NewOccurrence[]): Figures {
  return { count: rows.length, errorCount: rows.filter((row) => row.status === 'error').length, durations: rows.map((row) => row.duration_ms) };
}

export function groupBy<K>(rows: readonly NewOccurrence[], key: (row: NewOccurrence) => K | undefined): Map<K, NewOccurrence[]> {
  const groups = new Map<K, NewOccurrence[]>();
  for (const row of rows) {
    const k = key(row);
    if (k === undefined) continue;
    const group = groups.get(k);
    if (group) group.push(row);
    else groups.set(k, [row]);
  }
  return groups;
}

export function inRange(rows: readonly NewOccurrence[], fromMs: number, toMs: number): NewOccurrence[] {
  return rows.filter((row) => row.started_at >= fromMs && row.started_at < toMs);
}

export function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

export interface ExpectedEdge {
  source: string;
  target: string;
  targetKind: string;
  durations: number[];
  errorCount: number;
}

/**
 * Dependency edges by their definition: a client/producer span naming a peer service (or
 * address), a client span on a database without a peer, and a cross-service parent/child pair
 * whose parent declares no such edge (figures of the child).
 */
export function expectedEdges(all: readonly NewOccurrence[], counted: readonly NewOccurrence[]): Map<string, ExpectedEdge> {
  const caller = (row: NewOccurrence) => row.kind === 'client' || row.kind === 'producer';
  const declared = (row: NewOccurrence): [string, string] | undefined => {
    if (!caller(row)) return undefined;
    if (row.peer_service !== null) return [row.peer_service, 'service'];
    if (row.peer_address !== null) return [row.peer_address, 'address'];
    if (row.db_system !== null && row.kind === 'client') return [row.db_system, 'database'];
    return undefined;
  };
  const bySpan = new Map(all.map((row) => [`${row.trace_id}/${row.span_id}`, row]));
  const edges = new Map<string, ExpectedEdge>();
  const add = (source: string, target: string, targetKind: string, row: NewOccurrence) => {
    const key = `${source}>${target}>${targetKind}`;
    const edge = edges.get(key) ?? { source, target, targetKind, durations: [], errorCount: 0 };
    edge.durations.push(row.duration_ms);
    if (row.status === 'error') edge.errorCount += 1;
    edges.set(key, edge);
  };
  for (const row of counted) {
    const own = declared(row);
    if (own) add(row.service, own[0], own[1], row);
    const parent = row.parent_span_id === null ? undefined : bySpan.get(`${row.trace_id}/${row.parent_span_id}`);
    if (parent && parent.service !== row.service && !declared(parent)) add(parent.service, row.service, 'service', row);
  }
  return edges;
}

/**
 * The spans a service's figures count, by the rule's definition: its entry spans (server and
 * consumer); for a service with none among `rows`, its internal spans without a parent.
 */
export function countedRows(rows: readonly NewOccurrence[]): NewOccurrence[] {
  const isEntry = (row: NewOccurrence) => row.kind === 'server' || row.kind === 'consumer';
  const withEntries = new Set(rows.filter(isEntry).map((row) => row.service));
  return rows.filter((row) => isEntry(row) || (!withEntries.has(row.service) && row.kind === 'internal' && row.parent_span_id === null));
}

/**
 * Apdex by its definition: ok spans at or below their service's threshold T are satisfied, ok
 * spans above T up to 4T tolerating, the rest (slower, or errors) frustrated; null without spans.
 */
export function exactApdex(rows: readonly NewOccurrence[], thresholdOf: (service: string) => number): number | null {
  if (rows.length === 0) return null;
  let satisfied = 0;
  let tolerating = 0;
  for (const row of rows) {
    if (row.status === 'error') continue;
    const thresholdMs = thresholdOf(row.service);
    if (row.duration_ms <= thresholdMs) satisfied += 1;
    else if (row.duration_ms <= 4 * thresholdMs) tolerating += 1;
  }
  return (satisfied + tolerating / 2) / rows.length;
}

/** What the tree needs of an occurrence; the rest of it is carried through untouched. */
export interface TraceSpanInput {
  readonly id: string;
  readonly spanId: string;
  readonly parentSpanId: string | null;
  readonly service: string;
  readonly startedAtMs: number;
  readonly durationMs: number;
}

/** An occurrence placed in the waterfall. */
export type TraceSpanNode<T extends TraceSpanInput> = T & {
  /** 0 for roots (and for spans whose parent was never received), parent's depth + 1 otherwise. */
  readonly depth: number;
  /** Milliseconds from the trace's first start to this span's start. */
  readonly offsetMs: number;
  /** True when the span names a parent that is not in the trace (lost, sampled out, or late). */
  readonly parentMissing: boolean;
};

export interface TraceTree<T extends TraceSpanInput> {
  /** Depth-first, children in start order: the rows of a waterfall, top to bottom. */
  readonly spans: Array<TraceSpanNode<T>>;
  /** Distinct services, in the order they first appear in the waterfall. */
  readonly services: string[];
  readonly startedAtMs: number;
  /** From the first start to the last end. */
  readonly durationMs: number;
}

function byStart(a: TraceSpanInput, b: TraceSpanInput): number {
  return a.startedAtMs - b.startedAtMs || (a.spanId < b.spanId ? -1 : a.spanId > b.spanId ? 1 : 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * Arranges a trace's occurrences as a tree for a waterfall. A span whose parent is missing is
 * still shown, as a root marked `parentMissing`. Every occurrence appears exactly once, even when
 * bad data makes spans parents of each other (such a cycle is broken at its earliest span).
 */
export function buildTraceTree<T extends TraceSpanInput>(occurrences: readonly T[]): TraceTree<T> {
  const sorted = [...occurrences].sort(byStart);
  const present = new Set(sorted.map((span) => span.spanId));
  const children = new Map<string, T[]>();
  for (const span of sorted) {
    if (span.parentSpanId === null || span.parentSpanId === span.spanId || !present.has(span.parentSpanId)) continue;
    const siblings = children.get(span.parentSpanId);
    if (siblings) siblings.push(span);
    else children.set(span.parentSpanId, [span]);
  }

  const startedAtMs = sorted.length > 0 ? sorted[0]!.startedAtMs : 0;
  const spans: Array<TraceSpanNode<T>> = [];
  const placed = new Set<T>();
  const expandedSpanIds = new Set<string>();
  const place = (root: T, parentMissing: boolean): void => {
    // An explicit stack: a pathological trace may nest deeper than the call stack allows.
    const stack: Array<{ span: T; depth: number; parentMissing: boolean }> = [{ span: root, depth: 0, parentMissing }];
    while (stack.length > 0) {
      const { span, depth, parentMissing: missing } = stack.pop()!;
      if (placed.has(span)) continue;
      placed.add(span);
      spans.push({ ...span, depth, offsetMs: span.startedAtMs - startedAtMs, parentMissing: missing });
      // Duplicate span ids share one child list; it is expanded under the first of them only.
      if (expandedSpanIds.has(span.spanId)) continue;
      expandedSpanIds.add(span.spanId);
      const kids = children.get(span.spanId) ?? [];
      for (let i = kids.length - 1; i >= 0; i -= 1) stack.push({ span: kids[i]!, depth: depth + 1, parentMissing: false });
    }
  };
  for (const span of sorted) {
    const isRoot = span.parentSpanId === null || span.parentSpanId === span.spanId;
    if (isRoot || !present.has(span.parentSpanId!)) place(span, !isRoot);
  }
  // Whatever is left hangs off a cycle of parents: show it from its earliest span.
  for (const span of sorted) if (!placed.has(span)) place(span, true);

  const services: string[] = [];
  for (const span of spans) if (!services.includes(span.service)) services.push(span.service);
  const endMs = sorted.reduce((end, span) => Math.max(end, span.startedAtMs + span.durationMs), startedAtMs);
  return { spans, services, startedAtMs, durationMs: endMs - startedAtMs };
}

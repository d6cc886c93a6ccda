import { describe, expect, it } from 'vitest';
import { buildTraceTree, type TraceSpanInput } from '../src/query/trace-tree.js';

const t0 = Date.parse('2026-11-21T10:00:00.000Z');
function span(spanId: string, parentSpanId: string | null, service: string, startOffsetMs: number, durationMs: number): TraceSpanInput {
  return { id: `occ-${spanId}`, spanId, parentSpanId, service, startedAtMs: t0 + startOffsetMs, durationMs };
}

describe('trace tree', () => {
  it('orders a three-service trace depth first, children by start, with depths and offsets', () => {
    const tree = buildTraceTree([
      span('db', 'orders', 'orders', 30, 10),
      span('pay', 'gateway', 'payments', 60, 30),
      span('gateway', null, 'gateway', 0, 100),
      span('orders', 'gateway', 'orders', 10, 40),
    ]);
    expect(tree.spans.map((s) => [s.spanId, s.depth, s.offsetMs, s.parentMissing])).toEqual([
      ['gateway', 0, 0, false],
      ['orders', 1, 10, false],
      ['db', 2, 30, false],
      ['pay', 1, 60, false],
    ]);
    expect(tree.services).toEqual(['gateway', 'orders', 'payments']);
    expect(tree.startedAtMs).toBe(t0);
    expect(tree.durationMs).toBe(100);
  });

  it('still shows spans whose parent is missing, as roots marked parentMissing, with their children', () => {
    const tree = buildTraceTree([span('root', null, 'a', 0, 50), span('lost-child', 'never-received', 'b', 20, 10), span('grandchild', 'lost-child', 'c', 22, 5)]);
    expect(tree.spans.map((s) => [s.spanId, s.depth, s.parentMissing])).toEqual([
      ['root', 0, false],
      ['lost-child', 0, true],
      ['grandchild', 1, false],
    ]);
  });

  it('shows every span once even when bad data makes spans parents of each other', () => {
    const tree = buildTraceTree([span('x', 'y', 'a', 0, 5), span('y', 'x', 'a', 1, 5), span('z', 'z', 'a', 2, 5)]);
    expect(tree.spans.map((s) => s.spanId).sort()).toEqual(['x', 'y', 'z']);
    expect(tree.spans.find((s) => s.spanId === 'y')?.depth).toBe(1);
  });

  it('measures the trace to the last end, which may be a child outliving its parent', () => {
    const tree = buildTraceTree([span('root', null, 'a', 0, 10), span('async', 'root', 'b', 5, 100)]);
    expect(tree.durationMs).toBe(105);
  });

  it('handles a chain deeper than the call stack', () => {
    const chain = Array.from({ length: 50_000 }, (_, i) => span(`s${i}`, i === 0 ? null : `s${i - 1}`, 'a', i, 1));
    const tree = buildTraceTree(chain);
    expect(tree.spans).toHaveLength(50_000);
    expect(tree.spans.at(-1)?.depth).toBe(49_999);
  });
});

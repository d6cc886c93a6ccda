import { describe, expect, it } from 'vitest';
import { edgePath, layoutServiceMap } from '../src/charts/service-map-layout.js';
import { serviceColors, servicePalette } from '../src/charts/service-colors.js';
import { apdexRating, formatApdex, formatBytes, formatDurationMs, formatDurationTicks, formatPercent, formatRate, formatTimestamp } from '../src/format.js';
import { matchRoute, safeNextPath } from '../src/state/routes.js';
import { sparklineInterval } from '../src/state/sparkline-interval.js';
import { sparklineCounts } from '../src/pages/sparkline-counts.js';

describe('client routes', () => {
  it('matches patterns and decodes parameters', () => {
    expect(matchRoute('/services/:name', '/services/checkout%20api')).toEqual({ name: 'checkout api' });
    expect(matchRoute('/services/:name/:tab', '/services/checkout/database/')).toEqual({ name: 'checkout', tab: 'database' });
    expect(matchRoute('/services', '/services')).toEqual({});
    expect(matchRoute('/services/:name', '/services')).toBeUndefined();
    expect(matchRoute('/services/:name', '/traces/abc')).toBeUndefined();
    expect(matchRoute('/services/:name', '/services/%E0%A4%A')).toBeUndefined();
  });

  it('only returns to a path on this site after sign-in', () => {
    expect(safeNextPath('/occurrences?status=error')).toBe('/occurrences?status=error');
    for (const next of ['https://evil.example/', '//evil.example/x', '/\\evil.example', 'javascript:alert(1)', '', null, undefined]) {
      expect(safeNextPath(next), String(next)).toBe('/');
    }
  });
});

describe('formatting', () => {
  it('formats durations with a precision that suits their size', () => {
    expect(formatDurationMs(0.4213)).toBe('0.42 ms');
    expect(formatDurationMs(12.34)).toBe('12.3 ms');
    expect(formatDurationMs(250.4)).toBe('250 ms');
    expect(formatDurationMs(1520)).toBe('1.52 s');
    expect(formatDurationMs(126_000)).toBe('2.1 min');
    expect(formatDurationMs(null)).toBe('–');
  });

  it('formats rates, percentages, bytes and timestamps', () => {
    expect(formatPercent(0)).toBe('0%');
    expect(formatPercent(0.0004)).toBe('<0.1%');
    expect(formatPercent(0.0525)).toBe('5.3%');
    expect(formatPercent(0.5)).toBe('50%');
    expect(formatRate(0)).toBe('0/min');
    expect(formatRate(2.25)).toBe('2.3/min');
    expect(formatRate(12_345)).toBe('12,345/min');
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(5 * 1024 * 1024)).toBe('5.0 MiB');
    expect(formatTimestamp('2026-11-21T10:00:00.123Z')).toBe('2026-11-21 10:00:00.123');
  });
});

describe('service map layout', () => {
  it('puts callers left of what they call, and databases after the services that use them', () => {
    const layout = layoutServiceMap([
      { source: 'web', target: 'checkout', targetKind: 'service' },
      { source: 'checkout', target: 'payments', targetKind: 'service' },
      { source: 'checkout', target: 'postgresql', targetKind: 'database' },
      { source: 'web', target: 'payments', targetKind: 'service' },
    ]);
    expect(layout.shape).toBe('columns');
    const x = Object.fromEntries(layout.nodes.map((node) => [node.id, node.x]));
    expect(x.web).toBeLessThan(x.checkout!);
    expect(x.checkout).toBeLessThan(x.payments!);
    expect(x.payments).toBe(x.postgresql);
    expect(layout.nodes.find((node) => node.id === 'postgresql')?.kind).toBe('database');
    expect(new Set(layout.nodes.map((node) => `${node.x},${node.y}`)).size).toBe(layout.nodes.length);
    expect(Math.max(...layout.nodes.map((node) => node.x))).toBeLessThan(layout.width);
  });

  it('puts a graph with cycles round an ellipse, a caller counting as a service even when named as an address', () => {
    const layout = layoutServiceMap([
      { source: 'a', target: 'b', targetKind: 'service' },
      { source: 'b', target: 'a', targetKind: 'address' },
      { source: 'a', target: 'a', targetKind: 'service' },
    ]);
    expect(layout.shape).toBe('ellipse');
    expect(layout.nodes.map((node) => node.id).sort()).toEqual(['a', 'b']);
    expect(layout.nodes.every((node) => node.kind === 'service')).toBe(true);
  });

  it('puts a chain too deep for the page round an ellipse, every box inside and none overlapping another', () => {
    for (const length of [8, 20, 30, 60]) {
      const edges = Array.from({ length }, (_, i) => ({ source: `s${i}`, target: `s${i + 1}`, targetKind: 'service' }));
      const layout = layoutServiceMap(edges);
      expect(layout.shape).toBe('ellipse');
      expect(layout.nodes).toHaveLength(length + 1);
      for (const node of layout.nodes) {
        expect(node.x - 74).toBeGreaterThanOrEqual(0);
        expect(node.x + 74).toBeLessThanOrEqual(layout.width);
        expect(node.y - 18).toBeGreaterThanOrEqual(0);
        expect(node.y + 18).toBeLessThanOrEqual(layout.height);
      }
      for (const a of layout.nodes) {
        for (const b of layout.nodes) {
          if (a !== b) expect(Math.abs(a.x - b.x) >= 148 || Math.abs(a.y - b.y) >= 36, `${length}: ${a.id} / ${b.id}`).toBe(true);
        }
      }
      const [first, second] = layout.nodes;
      expect(edgePath(layout, first!, second!)).toMatch(/^M [\d.]+ [\d.]+ Q [\d.]+ [\d.]+ [\d.]+ [\d.]+$/);
    }
  });
});

describe('service colours', () => {
  it('gives the services of one view distinct colours in order of appearance, repeating past the palette', () => {
    const names = Array.from({ length: servicePalette.length + 1 }, (_, i) => `service-${i}`);
    const colors = serviceColors([...names, 'service-0']);
    expect(colors.size).toBe(names.length);
    expect(new Set(names.slice(0, servicePalette.length).map((name) => colors.get(name))).size).toBe(servicePalette.length);
    expect(colors.get('service-0')).toBe(servicePalette[0]);
    expect(colors.get(`service-${servicePalette.length}`)).toBe(servicePalette[0]);
  });
});

describe('sparkline interval', () => {
  const to = '2026-11-21T12:00:00.000Z';
  const before = (ms: number) => new Date(Date.parse(to) - ms).toISOString();
  it('picks the finest interval giving at most 48 points', () => {
    expect(sparklineInterval(before(15 * 60_000), to)).toBe('1m');
    expect(sparklineInterval(before(3_600_000), to)).toBe('5m');
    expect(sparklineInterval(before(24 * 3_600_000), to)).toBe('1h');
    expect(sparklineInterval(before(7 * 24 * 3_600_000), to)).toBe('6h');
    expect(sparklineInterval(before(30 * 24 * 3_600_000), to)).toBe('1d');
    expect(sparklineInterval(before(400 * 24 * 3_600_000), to)).toBe('1d');
  });
});

describe('latency axis labels and Apdex', () => {
  it('labels a latency axis in one unit with the precision its step needs, zero as 0', () => {
    expect(formatDurationTicks([0, 50, 100, 150])).toEqual(['0', '50 ms', '100 ms', '150 ms']);
    expect(formatDurationTicks([0, 0.5, 1, 1.5])).toEqual(['0', '0.5 ms', '1.0 ms', '1.5 ms']);
    expect(formatDurationTicks([0, 0.02, 0.04])).toEqual(['0', '0.02 ms', '0.04 ms']);
    expect(formatDurationTicks([0, 500, 1000, 1500])).toEqual(['0', '0.5 s', '1.0 s', '1.5 s']);
    expect(formatDurationTicks([0, 60_000, 120_000])).toEqual(['0', '1 min', '2 min']);
    expect(formatDurationTicks([0])).toEqual(['0']);
  });

  it('shows Apdex with two decimals and its rating', () => {
    expect(formatApdex(0.9375)).toBe('0.94');
    expect(formatApdex(null)).toBe('–');
    expect([0.95, 0.9, 0.75, 0.6, 0.2].map(apdexRating)).toEqual(['excellent', 'good', 'fair', 'poor', 'unacceptable']);
    expect(apdexRating(null)).toBeUndefined();
  });
});

describe('sparkline counts', () => {
  const bucket = (start: string, count: number) => ({ start, count, errorCount: 0, errorRate: 0, p50Ms: null, p95Ms: null, p99Ms: null, apdex: null });
  const buckets = [bucket('2026-11-21T09:00:00.000Z', 1), bucket('2026-11-21T10:00:00.000Z', 10), bucket('2026-11-21T11:00:00.000Z', 12), bucket('2026-11-21T12:00:00.000Z', 2)];

  it('leaves out a first bucket the range cuts, and keeps the last one, still filling', () => {
    expect(sparklineCounts({ from: '2026-11-21T09:30:00.000Z', buckets })).toEqual([10, 12, 2]);
  });

  it('keeps a first bucket that starts with the range, and very short trends whole', () => {
    expect(sparklineCounts({ from: '2026-11-21T09:00:00.000Z', buckets })).toEqual([1, 10, 12, 2]);
    expect(sparklineCounts({ from: '2026-11-21T09:30:00.000Z', buckets: buckets.slice(0, 2) })).toEqual([1, 10]);
  });
});

import { describe, expect, it } from 'vitest';
import type { ServiceRow } from '../src/api/api-types.js';
import { defaultServiceSort, nextServiceSort, readServiceSort, sortServices, writeServiceSort } from '../src/pages/service-sort.js';

const row = (service: string, count: number, p95Ms: number | null): ServiceRow => ({
  service,
  environments: ['production'],
  countedSpans: 'entry',
  apdex: null,
  apdexThresholdMs: 500,
  count,
  errorCount: 0,
  errorRate: 0,
  p50Ms: p95Ms,
  p95Ms,
  p99Ms: p95Ms,
  lastSeenAt: '2026-11-21T10:00:00.000Z',
});

const rows = [row('web', 20, 120), row('checkout', 30, 90), row('payments', 10, null), row('search', 20, 40)];
const names = (sorted: ServiceRow[]) => sorted.map((entry) => entry.service);

describe('services table sorting', () => {
  it('puts the busiest first by default, ties by name', () => {
    expect(names(sortServices(rows, defaultServiceSort))).toEqual(['checkout', 'search', 'web', 'payments']);
  });

  it('sorts by a latency either way, services without a figure last', () => {
    expect(names(sortServices(rows, { key: 'p95Ms', descending: true }))).toEqual(['web', 'checkout', 'search', 'payments']);
    expect(names(sortServices(rows, { key: 'p95Ms', descending: false }))).toEqual(['search', 'checkout', 'web', 'payments']);
  });

  it('sorts by name', () => {
    expect(names(sortServices(rows, { key: 'service', descending: false }))).toEqual(['checkout', 'payments', 'search', 'web']);
  });

  it('reads and writes the URL form, ignoring unknown columns', () => {
    expect(readServiceSort('-p95Ms')).toEqual({ key: 'p95Ms', descending: true });
    expect(readServiceSort('service')).toEqual({ key: 'service', descending: false });
    expect(readServiceSort('-password')).toEqual(defaultServiceSort);
    expect(readServiceSort(null)).toEqual(defaultServiceSort);
    expect(writeServiceSort({ key: 'errorRate', descending: true })).toBe('-errorRate');
  });

  it('flips the direction on the same column and starts a new one in its natural order', () => {
    expect(nextServiceSort({ key: 'p95Ms', descending: true }, 'p95Ms')).toEqual({ key: 'p95Ms', descending: false });
    expect(nextServiceSort(defaultServiceSort, 'p99Ms')).toEqual({ key: 'p99Ms', descending: true });
    expect(nextServiceSort(defaultServiceSort, 'service')).toEqual({ key: 'service', descending: false });
  });
});

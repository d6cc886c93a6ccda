import { describe, expect, it } from 'vitest';
import { grainFor, grainsOf, largestTierWithin, operationTiers, planTiers, tierDimensions } from '../src/query/rollup-tiers.js';

const minute = 60_000;
const hour = 60 * minute;
const t0 = Date.parse('2026-11-21T00:00:00Z');

describe('rollup tier planning', () => {
  it('covers an aligned day with hour buckets only', () => {
    expect(planTiers(t0, t0 + 24 * hour, new Set(), hour)).toEqual({ tiers: [{ tierMs: hour, fromMs: t0, toMs: t0 + 24 * hour }], sourceMinutes: [] });
  });

  it('covers unaligned ends with quarter hours and minutes', () => {
    const plan = planTiers(t0 + 7 * minute, t0 + 2 * hour + 20 * minute, new Set(), hour);
    expect(plan.sourceMinutes).toEqual([]);
    expect(plan.tiers).toEqual([
      { tierMs: minute, fromMs: t0 + 7 * minute, toMs: t0 + 15 * minute },
      { tierMs: 15 * minute, fromMs: t0 + 15 * minute, toMs: t0 + hour },
      { tierMs: hour, fromMs: t0 + hour, toMs: t0 + 2 * hour },
      { tierMs: 15 * minute, fromMs: t0 + 2 * hour, toMs: t0 + 2 * hour + 15 * minute },
      { tierMs: minute, fromMs: t0 + 2 * hour + 15 * minute, toMs: t0 + 2 * hour + 20 * minute },
    ]);
  });

  it('covers the last 24 hours, ending mid-hour, with three 6-hour buckets and the hours around them', () => {
    const end = t0 + 2 * 24 * hour + 11 * hour + 37 * minute;
    const plan = planTiers(end - 24 * hour, end, new Set(), largestTierWithin(undefined));
    expect(plan.sourceMinutes).toEqual([]);
    expect(plan.tiers.filter((span) => span.tierMs === 6 * hour)).toEqual([{ tierMs: 6 * hour, fromMs: t0 + 24 * hour + 12 * hour, toMs: t0 + 2 * 24 * hour + 6 * hour }]);
    expect(plan.tiers.filter((span) => span.tierMs === hour)).toEqual([{ tierMs: hour, fromMs: t0 + 2 * 24 * hour + 6 * hour, toMs: t0 + 2 * 24 * hour + 11 * hour }]);
    // Every minute covered once, by buckets that lie inside the range.
    const covered = plan.tiers.reduce((total, span) => total + (span.toMs - span.fromMs), 0);
    expect(covered).toBe(24 * hour);
    for (const span of plan.tiers) expect((span.toMs - span.fromMs) % span.tierMs).toBe(0);
  });

  it('breaks a 6-hour bucket around a dirty minute into the hours that stay clean', () => {
    const dirty = new Set([t0 + 2 * hour + 5 * minute]);
    const plan = planTiers(t0, t0 + 12 * hour, dirty, largestTierWithin(undefined));
    expect(plan.sourceMinutes).toEqual([{ fromMs: t0 + 2 * hour + 5 * minute, toMs: t0 + 2 * hour + 6 * minute }]);
    expect(plan.tiers).toContainEqual({ tierMs: hour, fromMs: t0, toMs: t0 + 2 * hour });
    expect(plan.tiers).toContainEqual({ tierMs: hour, fromMs: t0 + 3 * hour, toMs: t0 + 6 * hour });
    expect(plan.tiers).toContainEqual({ tierMs: 6 * hour, fromMs: t0 + 6 * hour, toMs: t0 + 12 * hour });
  });

  it('reads dirty minutes from the per-minute rollups and breaks the buckets around them', () => {
    const dirty = new Set([t0 + hour + 31 * minute]);
    const plan = planTiers(t0, t0 + 3 * hour, dirty, hour);
    expect(plan.sourceMinutes).toEqual([{ fromMs: t0 + hour + 31 * minute, toMs: t0 + hour + 32 * minute }]);
    expect(plan.tiers).toContainEqual({ tierMs: minute, fromMs: t0 + hour + 30 * minute, toMs: t0 + hour + 31 * minute });
    expect(plan.tiers).toContainEqual({ tierMs: hour, fromMs: t0 + 2 * hour, toMs: t0 + 3 * hour });
  });

  it('never lets a tier bucket straddle an output bucket', () => {
    expect(largestTierWithin(5 * minute)).toBe(5 * minute);
    expect(largestTierWithin(2 * minute)).toBe(minute);
    expect(largestTierWithin(30 * minute)).toBe(15 * minute);
    expect(largestTierWithin(2 * hour)).toBe(hour);
    expect(largestTierWithin(24 * hour)).toBe(6 * hour);
    expect(largestTierWithin(undefined)).toBe(6 * hour);
    const plan = planTiers(t0, t0 + hour, new Set(), largestTierWithin(5 * minute));
    expect(plan.tiers).toEqual([{ tierMs: minute, fromMs: t0, toMs: t0 + hour }]);
  });

  it('covers the ends of an operations range with 5-minute buckets and at most 4 source minutes a side', () => {
    const end = t0 + 2 * 24 * hour + 11 * hour + 37 * minute + 20_000;
    const first = end - 24 * hour - ((end - 24 * hour) % minute);
    const last = Math.ceil(end / minute) * minute;
    const plan = planTiers(first, last, new Set(), largestTierWithin(undefined), false, operationTiers.sizesMs);
    expect(plan.tiers.some((span) => span.tierMs === minute)).toBe(false);
    // 11:37 to 11:40 and 11:35 to 11:38 (next day) from the per-minute rollups, five minutes up to the quarter hours.
    expect(plan.sourceMinutes).toEqual([
      { fromMs: first, toMs: first + 3 * minute },
      { fromMs: last - 3 * minute, toMs: last },
    ]);
    expect(plan.tiers.filter((span) => span.tierMs === 5 * minute)).toEqual([
      { tierMs: 5 * minute, fromMs: first + 3 * minute, toMs: first + 8 * minute },
      { tierMs: 5 * minute, fromMs: last - 8 * minute, toMs: last - 3 * minute },
    ]);
    expect(plan.tiers.reduce((total, span) => total + (span.toMs - span.fromMs), 0) + 6 * minute).toBe(last - first);
  });

  it('reads single minutes from the per-minute rollups where the 1-minute tier does not keep the grain', () => {
    const plan = planTiers(t0 + 50 * minute, t0 + 2 * hour, new Set(), hour, false);
    expect(plan.sourceMinutes).toEqual([{ fromMs: t0 + 50 * minute, toMs: t0 + hour }]);
    expect(plan.tiers).toEqual([{ tierMs: hour, fromMs: t0 + hour, toMs: t0 + 2 * hour }]);
  });

  it('numbers grains by which cube columns hold "all"', () => {
    const tenants = tierDimensions.tenant_rollups;
    expect(grainsOf(tenants)).toHaveLength(8);
    expect(grainFor(tenants, [])).toBe(0);
    expect(grainFor(tenants, ['environment'])).toBe(4);
    expect(grainsOf(tenants)[grainFor(tenants, ['tenant_id', 'environment'])]?.allColumns).toEqual(['tenant_id', 'environment']);
  });
});

import { describe, expect, it } from 'vitest';
import { grainFor, grainsOf, largestTierWithin, planTiers, tierDimensions } from '../src/query/rollup-tiers.js';

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

  it('reads dirty minutes from the per-minute rollups and breaks the buckets around them', () => {
    const dirty = new Set([t0 + hour + 31 * minute]);
    const plan = planTiers(t0, t0 + 3 * hour, dirty, hour);
    expect(plan.sourceMinutes).toEqual([{ fromMs: t0 + hour + 31 * minute, toMs: t0 + hour + 32 * minute }]);
    expect(plan.tiers).toContainEqual({ tierMs: minute, fromMs: t0 + hour + 30 * minute, toMs: t0 + hour + 31 * minute });
    expect(plan.tiers).toContainEqual({ tierMs: hour, fromMs: t0 + 2 * hour, toMs: t0 + 3 * hour });
  });

  it('never lets a tier bucket straddle an output bucket', () => {
    expect(largestTierWithin(5 * minute)).toBe(minute);
    expect(largestTierWithin(30 * minute)).toBe(15 * minute);
    expect(largestTierWithin(24 * hour)).toBe(hour);
    const plan = planTiers(t0, t0 + hour, new Set(), largestTierWithin(5 * minute));
    expect(plan.tiers).toEqual([{ tierMs: minute, fromMs: t0, toMs: t0 + hour }]);
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

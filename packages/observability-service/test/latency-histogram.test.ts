import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bucketIndexOf,
  bucketValueMs,
  histogramRelativeError,
  LatencyHistogram,
  maxBucketIndex,
  maxTrackedMs,
  minTrackedMs,
} from '../src/storage/latency-histogram.js';

/** The exact nearest-rank quantile the histogram estimates. */
function nearestRank(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1]!;
}

const duration = fc.double({ min: 0, max: maxTrackedMs, noNaN: true, noDefaultInfinity: true });

describe('latency histogram', () => {
  it('reports every duration within the relative error bound', () => {
    fc.assert(
      fc.property(fc.double({ min: minTrackedMs * 1.0000001, max: maxTrackedMs, noNaN: true }), (value) => {
        const estimate = bucketValueMs(bucketIndexOf(value));
        expect(Math.abs(estimate - value) / value).toBeLessThanOrEqual(histogramRelativeError + 1e-12);
      }),
    );
  });

  it('puts durations at or below one microsecond in bucket 0, reported as 0', () => {
    expect(bucketIndexOf(0)).toBe(0);
    expect(bucketIndexOf(minTrackedMs)).toBe(0);
    expect(bucketValueMs(0)).toBe(0);
    expect(new LatencyHistogram().record(0).quantile(0.5)).toBe(0);
  });

  it('has a fixed, bounded number of buckets', () => {
    expect(bucketIndexOf(maxTrackedMs * 10)).toBe(maxBucketIndex);
    expect(maxBucketIndex).toBeLessThan(700);
  });

  it('estimates nearest-rank quantiles within the bound, merged or not', () => {
    fc.assert(
      fc.property(fc.array(duration, { minLength: 1, maxLength: 300 }), fc.integer({ min: 0, max: 300 }), (values, split) => {
        const left = new LatencyHistogram();
        const right = new LatencyHistogram();
        values.forEach((value, index) => (index < split ? left : right).record(value));
        const merged = LatencyHistogram.decode(left.encode()).merge(LatencyHistogram.decode(right.encode()));
        expect(merged.count).toBe(values.length);
        for (const q of [0, 0.5, 0.95, 0.99, 1]) {
          const exact = nearestRank(values, q);
          const estimate = merged.quantile(q)!;
          if (exact <= minTrackedMs) expect(estimate).toBe(0);
          else expect(Math.abs(estimate - exact) / exact).toBeLessThanOrEqual(histogramRelativeError + 1e-12);
        }
      }),
    );
  });

  it('encodes sparsely in ascending bucket order and decodes to the same counts', () => {
    const histogram = new LatencyHistogram().record(250).record(1).record(1).record(250, 3);
    expect(histogram.encode()).toBe(`${bucketIndexOf(1)}:2,${bucketIndexOf(250)}:4`);
    expect(LatencyHistogram.decode(histogram.encode()).buckets()).toEqual(histogram.buckets());
    expect(LatencyHistogram.decode('').count).toBe(0);
    expect(new LatencyHistogram().quantile(0.5)).toBeUndefined();
  });

  it.each(['x', '1:0', '-1:2', '1:2,', `${maxBucketIndex + 1}:1`, '1.5:1'])('refuses the malformed encoding %j', (encoded) => {
    expect(() => LatencyHistogram.decode(encoded)).toThrow(/malformed/);
  });
});

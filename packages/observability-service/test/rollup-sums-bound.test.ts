import { describe, expect, it } from 'vitest';
import { rowsFewEnoughToSumInJavaScript } from '../src/query/rollup-aggregate.js';

describe('which rollup counts are summed in JavaScript (SQLite)', () => {
  it('sums the usual reads in JavaScript: a day of tier buckets and the few minutes at its ends', () => {
    // The 24-hour operations list at 10M occurrences: 13 buckets of 1,320 keys, and 8 source minutes.
    expect(rowsFewEnoughToSumInJavaScript(13, 1_320, true)).toBe(true);
    expect(rowsFewEnoughToSumInJavaScript(8, 1_320, false)).toBe(true);
    // A week: 28 six-hour buckets and the hours around them.
    expect(rowsFewEnoughToSumInJavaScript(40, 5_000, true)).toBe(true);
  });

  it('leaves large reads to SQLite, which groups them without holding them all in memory', () => {
    // A day read from the per-minute rollups while the tiers catch up (a fresh upgrade).
    expect(rowsFewEnoughToSumInJavaScript(1_440, 1_320, false)).toBe(false);
    // ... even when the dictionary is still empty: its keys are not known yet.
    expect(rowsFewEnoughToSumInJavaScript(1_440, 0, false)).toBe(false);
    // 90 days of 6-hour buckets of a high-cardinality service.
    expect(rowsFewEnoughToSumInJavaScript(360, 20_000, true)).toBe(false);
  });
});

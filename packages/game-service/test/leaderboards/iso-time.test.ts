import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTimestamp } from '../../src/leaderboards/iso-time.js';

describe('isoTimestamp', () => {
  it('equals Date#toISOString for any time a Date can hold, before 1970 and after 9999 included', () => {
    fc.assert(
      fc.property(fc.integer({ min: -8.64e15, max: 8.64e15 }), (ms) => {
        expect(isoTimestamp(ms)).toBe(new Date(ms).toISOString());
      }),
      { numRuns: 20_000 },
    );
    for (const ms of [0, -1, 1, 86_399_999, 86_400_000, -86_400_000, Date.UTC(2026, 10, 21, 23, 59, 59, 999)]) {
      expect(isoTimestamp(ms)).toBe(new Date(ms).toISOString());
    }
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sortScoreOf } from '../../src/leaderboards/rank-order.js';

describe('a score as it sorts', () => {
  it('comes back as the score on boards of either order, and 0 never as -0 (as read back from Redis)', () => {
    fc.assert(
      fc.property(fc.constantFrom('asc' as const, 'desc' as const), fc.oneof(fc.integer(), fc.constant(0), fc.constant(-0)), (order, score) => {
        const back = sortScoreOf(order, sortScoreOf(order, score));
        expect(back === score).toBe(true);
        if (score === 0) expect(Object.is(back, 0) && Object.is(sortScoreOf(order, score), 0)).toBe(true);
      }),
    );
  });
});

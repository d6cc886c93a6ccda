import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareRankKeys, type RankKey } from '../../src/leaderboards/rank-order.js';
import { RankSkipList } from '../../src/leaderboards/skip-list.js';

const playerIds = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l'];

const operation = fc.oneof(
  fc.record({
    kind: fc.constant('upsert' as const),
    playerId: fc.constantFrom(...playerIds),
    sortScore: fc.integer({ min: -3, max: 3 }),
    achievedAt: fc.integer({ min: 0, max: 2 }),
  }),
  fc.record({ kind: fc.constant('remove' as const), playerId: fc.constantFrom(...playerIds) }),
);

function expectSameAsModel(list: RankSkipList, model: Map<string, RankKey>): void {
  const sorted = [...model.values()].sort(compareRankKeys).map((k) => k.playerId);
  expect(list.size).toBe(sorted.length);
  expect(list.playersFrom(1, sorted.length + 5)).toEqual(sorted);
  sorted.forEach((playerId, i) => {
    expect(list.rankOf(playerId)).toBe(i + 1);
    expect(list.playersFrom(i + 1, 2)).toEqual(sorted.slice(i, i + 2));
  });
  for (const playerId of playerIds) if (!model.has(playerId)) expect(list.rankOf(playerId)).toBeUndefined();
}

describe('rank skip list', () => {
  it('agrees with a sorted array after any sequence of upserts and removals (ties included)', () => {
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 80 }), (operations) => {
        const list = new RankSkipList();
        const model = new Map<string, RankKey>();
        for (const op of operations) {
          if (op.kind === 'upsert') {
            const key = { sortScore: op.sortScore, achievedAt: op.achievedAt, playerId: op.playerId };
            list.upsert(key);
            model.set(op.playerId, key);
          } else {
            expect(list.remove(op.playerId)).toBe(model.delete(op.playerId));
          }
        }
        expectSameAsModel(list, model);
      }),
      { numRuns: 300 },
    );
  });

  it('builds from sorted keys in one pass and stays correct under later changes', () => {
    const keys: RankKey[] = Array.from({ length: 2_000 }, (_, i) => ({ sortScore: Math.floor(i / 3), achievedAt: i % 3, playerId: `p${String(i).padStart(5, '0')}` }));
    const list = RankSkipList.fromSorted(keys);
    const model = new Map(keys.map((k) => [k.playerId, k]));
    expectSameAsModel(list, model);
    const moved = { sortScore: -1, achievedAt: 0, playerId: 'p01999' };
    list.upsert(moved);
    model.set(moved.playerId, moved);
    list.remove('p00000');
    model.delete('p00000');
    expectSameAsModel(list, model);
  });

  it('refuses unsorted input to the one-pass build', () => {
    expect(() =>
      RankSkipList.fromSorted([
        { sortScore: 2, achievedAt: 0, playerId: 'a' },
        { sortScore: 1, achievedAt: 0, playerId: 'b' },
      ]),
    ).toThrow(/rank order/);
  });
});

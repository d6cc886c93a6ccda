import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareRankKeys, type RankItem } from '../../src/leaderboards/rank-order.js';
import { RankTree } from '../../src/leaderboards/rank-tree.js';

const playerIds = Array.from({ length: 40 }, (_, i) => `p${String(i).padStart(2, '0')}`);

const operation = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('upsert' as const),
      playerId: fc.constantFrom(...playerIds),
      sortScore: fc.integer({ min: -3, max: 3 }),
      achievedAt: fc.integer({ min: 0, max: 2 }),
      // Two names per player, so some upserts only rename an entry that keeps its place.
      renamed: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('remove' as const), playerId: fc.constantFrom(...playerIds) }) },
);

const plain = (item: RankItem): RankItem => ({ sortScore: item.sortScore, achievedAt: item.achievedAt, playerId: item.playerId, displayName: item.displayName });

function expectSameAsModel(tree: RankTree, model: Map<string, RankItem>): void {
  tree.verifyStructure();
  const sorted = [...model.values()].sort(compareRankKeys).map(plain);
  expect(tree.size).toBe(sorted.length);
  expect(tree.itemsFrom(1, sorted.length + 5).map(plain)).toEqual(sorted);
  sorted.forEach((item, i) => {
    expect(tree.rankOf(item.playerId)).toBe(i + 1);
    expect(tree.itemsFrom(i + 1, 3).map(plain)).toEqual(sorted.slice(i, i + 3));
    expect(plain(tree.around(item.playerId, 0)!.items[0]!)).toEqual(item);
    // A cursor naming this entry, which has not moved: read on from it.
    const after = tree.itemsAfter(item, 5);
    expect({ ...after, items: after.items.map(plain) }).toEqual({ firstRank: i + 2, items: sorted.slice(i + 1, i + 6) });
    // Neighbours either side, across leaf boundaries at the small capacities, clipped at the ends.
    for (const radius of [0, 1, 3, 7]) {
      const first = Math.max(0, i - radius);
      const around = tree.around(item.playerId, radius)!;
      expect({ ...around, items: around.items.map(plain) }).toEqual({ rank: i + 1, firstRank: first + 1, items: sorted.slice(first, i + radius + 1) });
    }
  });
  expect(tree.itemsFrom(sorted.length + 1, 3)).toEqual([]);
  // Positions between, on and around the items held: how many rank at or before each.
  for (const sortScore of [-4, -3, -2, -1, 0, 1, 2, 3, 4]) {
    for (const achievedAt of [-1, 0, 1, 2]) {
      for (const playerId of ['', 'p05', 'p05a', 'p39', 'q']) {
        const key = { sortScore, achievedAt, playerId };
        const through = sorted.filter((item) => compareRankKeys(item, key) <= 0).length;
        expect(tree.countThrough(key)).toBe(through);
        const after = tree.itemsAfter(key, 4);
        expect({ ...after, items: after.items.map(plain) }).toEqual({ firstRank: through + 1, items: sorted.slice(through, through + 4) });
      }
    }
  }
  for (const playerId of playerIds) {
    if (model.has(playerId)) continue;
    expect(tree.rankOf(playerId)).toBeUndefined();
    expect(tree.around(playerId, 2)).toBeUndefined();
  }
}

type Operation = typeof operation extends fc.Arbitrary<infer T> ? T : never;

function applyAll(tree: RankTree, model: Map<string, RankItem>, operations: readonly Operation[]): void {
  for (const op of operations) {
    if (op.kind === 'upsert') {
      const item = { sortScore: op.sortScore, achievedAt: op.achievedAt, playerId: op.playerId, displayName: `${op.playerId}${op.renamed ? ' (renamed)' : ''}` };
      tree.upsert(item);
      model.set(op.playerId, item);
    } else {
      expect(tree.remove(op.playerId)).toBe(model.delete(op.playerId));
    }
  }
}

function sortedItems(count: number): RankItem[] {
  return Array.from({ length: count }, (_, i) => {
    const playerId = `p${String(i).padStart(5, '0')}`;
    return { sortScore: Math.floor(i / 3), achievedAt: i % 3, playerId, displayName: `Player ${playerId}` };
  });
}

describe('rank tree', () => {
  // Capacity 4 splits and merges nodes every few operations, several levels deep.
  for (const capacity of [4, 5, 64]) {
    it(`agrees with a sorted array after any sequence of upserts and removals, ties included (capacity ${capacity})`, () => {
      fc.assert(
        fc.property(fc.array(operation, { maxLength: 300 }), (operations) => {
          const tree = new RankTree(capacity);
          const model = new Map<string, RankItem>();
          applyAll(tree, model, operations);
          expectSameAsModel(tree, model);
        }),
        { numRuns: 200 },
      );
    });
  }

  it('builds from sorted items in one pass and stays correct as it grows, shrinks and empties', () => {
    for (const count of [0, 1, 3, 4, 5, 2_000]) {
      const items = sortedItems(count);
      const tree = RankTree.fromSorted(items, 4);
      const model = new Map(items.map((item) => [item.playerId, item]));
      expectSameAsModel(tree, model);
      if (count === 0) continue;
      const moved = { ...items.at(-1)!, sortScore: -1, displayName: 'Moved' };
      tree.upsert(moved);
      model.set(moved.playerId, moved);
      const renamed = { ...model.get(items[Math.floor(count / 2)]!.playerId)!, displayName: 'Renamed in place' };
      tree.upsert(renamed);
      model.set(renamed.playerId, renamed);
      expectSameAsModel(tree, model);
      const remove = (item: RankItem) => expect(tree.remove(item.playerId)).toBe(model.delete(item.playerId));
      // Remove every other entry, then the rest: merges all the way up to an empty root.
      items.filter((_, i) => i % 2 === 0).forEach(remove);
      expectSameAsModel(tree, model);
      items.forEach(remove);
      expectSameAsModel(tree, model);
      // And grows again from nothing.
      applyAll(tree, model, items.slice(0, 50).map((item) => ({ kind: 'upsert', renamed: false, ...item })));
      expectSameAsModel(tree, model);
    }
  });

  it('merges nodes at every level as entries thin out, and keeps ranks and order right throughout', () => {
    for (const capacity of [4, 6]) {
      const items = sortedItems(3_000);
      const tree = RankTree.fromSorted(items, capacity);
      const model = new Map(items.map((item) => [item.playerId, item]));
      // Each round keeps every other survivor: leaves thin out, merge, and their parents after them.
      let survivors = items;
      while (survivors.length > 1) {
        survivors.forEach((item, i) => {
          if (i % 2 === 1) expect(tree.remove(item.playerId)).toBe(model.delete(item.playerId));
        });
        survivors = survivors.filter((_, i) => i % 2 === 0);
        expectSameAsModel(tree, model);
      }
      // Entries arriving anywhere split the merged nodes again.
      applyAll(tree, model, items.filter((_, i) => i % 7 === 0).map((item) => ({ kind: 'upsert', renamed: true, ...item })));
      expectSameAsModel(tree, model);
    }
  });

  it('refuses unsorted or repeated input to the one-pass build, and capacities below 4', () => {
    expect(() =>
      RankTree.fromSorted([
        { sortScore: 2, achievedAt: 0, playerId: 'a', displayName: 'A' },
        { sortScore: 1, achievedAt: 0, playerId: 'b', displayName: 'B' },
      ]),
    ).toThrow(/rank order/);
    expect(() =>
      RankTree.fromSorted([
        { sortScore: 1, achievedAt: 0, playerId: 'a', displayName: 'A' },
        { sortScore: 2, achievedAt: 0, playerId: 'a', displayName: 'A' },
      ]),
    ).toThrow(/twice/);
    expect(() => new RankTree(3)).toThrow(RangeError);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '@playstack/server-kit/testing';
import { compareRankKeys, type RankItem } from '../../src/leaderboards/rank-order.js';
import { RankTree } from '../../src/leaderboards/rank-tree.js';

const shortIds = Array.from({ length: 40 }, (_, i) => `p${String(i).padStart(2, '0')}`);
/** UUIDs as the service makes them, packed by the tree: many share their first words, so comparisons reach the last. */
const uuidIds = Array.from({ length: 40 }, (_, i) =>
  i % 2 === 0 ? `0000000${i % 3}-0000-4000-8000-${String(i).padStart(12, '0')}` : `${(i * 0x1f3d5b79).toString(16).padStart(8, '0').slice(-8)}-7a2c-4b1e-${'89ab'[i % 4]}f00-0123456789ab`,
);
/**
 * UUIDs beside ids kept as strings, which must interleave with them in string order: uppercase
 * and non-RFC-variant UUIDs, prefixes of UUIDs, short ids.
 */
const mixedIds = [
  ...uuidIds.slice(0, 20),
  '00000000-0000-4000-8000-00000000000A',
  '00000000-0000-4000-c000-000000000001',
  '00000001-0000-4000-8000-0000000000',
  '00000002',
  'zz',
  '',
  ...shortIds.slice(0, 14),
];
const idSets = { 'short ids': shortIds, 'UUIDs (packed)': uuidIds, 'UUIDs and other ids': mixedIds };
/** Player ids probed by `countThrough` and `itemsAfter` beside those held. */
const shortProbeIds = ['', 'p05', 'p05a', 'p39', 'q'];
const uuidProbeIds = ['', 'p05', '00000000-0000-4000-8000-000000000004', '00000000-0000-4000-8000-0000000000040', '00000001', 'ffffffff-ffff-4fff-bfff-ffffffffffff'];
/** The property tests run hundreds of sequences each; a loaded machine needs more than the default 30 s. */
const propertyTimeoutMs = 120_000;

const operationOn = (playerIds: readonly string[]) => fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('upsert' as const),
      playerId: fc.constantFrom(...playerIds),
      sortScore: fc.integer({ min: -3, max: 3 }),
      // The subscore ranks ties on the score before their time.
      sortSubscore: fc.integer({ min: -2, max: 2 }),
      achievedAt: fc.integer({ min: 0, max: 2 }),
      // Two names per player, so some upserts only rename an entry that keeps its place.
      renamed: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('remove' as const), playerId: fc.constantFrom(...playerIds) }) },
);
const operation = operationOn(shortIds);

const plain = (item: RankItem): RankItem => ({ sortScore: item.sortScore, sortSubscore: item.sortSubscore, achievedAt: item.achievedAt, playerId: item.playerId, displayName: item.displayName });

function expectSameAsModel(tree: RankTree, model: Map<string, RankItem>, playerIds: readonly string[] = shortIds, probeIds: readonly string[] = shortProbeIds): void {
  tree.verifyStructure();
  const sorted = [...model.values()].sort(compareRankKeys).map(plain);
  expect(tree.size).toBe(sorted.length);
  expect(tree.itemsFrom(1, sorted.length + 5).map(plain)).toEqual(sorted);
  sorted.forEach((item, i) => {
    expect(tree.rankOf(item.playerId)).toBe(i + 1);
    expect(tree.itemsFrom(i + 1, 3).map(plain)).toEqual(sorted.slice(i, i + 3));
    expect(plain(tree.around(item.playerId, 0)!.items[0]!)).toEqual(item);
    expect(plain(tree.itemOf(item.playerId)!)).toEqual(item);
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
    for (const sortSubscore of [-3, 0, 1]) {
      for (const achievedAt of [-1, 0, 1, 2]) {
        for (const playerId of probeIds) {
          const key = { sortScore, sortSubscore, achievedAt, playerId };
          const through = sorted.filter((item) => compareRankKeys(item, key) <= 0).length;
          expect(tree.countThrough(key)).toBe(through);
          const after = tree.itemsAfter(key, 4);
          expect({ ...after, items: after.items.map(plain) }).toEqual({ firstRank: through + 1, items: sorted.slice(through, through + 4) });
        }
      }
    }
  }
  for (const playerId of playerIds) {
    if (model.has(playerId)) continue;
    expect(tree.rankOf(playerId)).toBeUndefined();
    expect(tree.around(playerId, 2)).toBeUndefined();
    expect(tree.itemOf(playerId)).toBeUndefined();
  }
}

type Operation = typeof operation extends fc.Arbitrary<infer T> ? T : never;

function applyAll(tree: RankTree, model: Map<string, RankItem>, operations: readonly Operation[]): void {
  for (const op of operations) {
    if (op.kind === 'upsert') {
      const item = { sortScore: op.sortScore, sortSubscore: op.sortSubscore, achievedAt: op.achievedAt, playerId: op.playerId, displayName: `${op.playerId}${op.renamed ? ' (renamed)' : ''}` };
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
    return { sortScore: Math.floor(i / 6), sortSubscore: Math.floor(i / 3) % 2, achievedAt: i % 3, playerId, displayName: `Player ${playerId}` };
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
    }, propertyTimeoutMs);
  }

  // The packed layout: UUIDs as words (ordered and found by them), other ids kept as strings.
  for (const [name, playerIds] of Object.entries(idSets).slice(1)) {
    it(`agrees with a sorted array with ${name}, built in one pass then changed at random`, () => {
      fc.assert(
        fc.property(fc.array(operationOn(playerIds), { maxLength: 200 }), fc.array(operationOn(playerIds), { maxLength: 200 }), (building, changes) => {
          const built = new Map<string, RankItem>();
          applyAll(new RankTree(4), built, building);
          const tree = RankTree.fromSorted([...built.values()].sort(compareRankKeys), 4);
          const model = new Map(built);
          expectSameAsModel(tree, model, playerIds, uuidProbeIds);
          applyAll(tree, model, changes);
          expectSameAsModel(tree, model, playerIds, uuidProbeIds);
        }),
        { numRuns: 40 },
      );
    }, propertyTimeoutMs);
  }

  // Slabs (256 leaves) hold no subscores until one of their items has one; then the whole slab
  // gets them. Thousands of items at capacity 4 span several slabs, most without subscores.
  it('keeps subscores right across slabs where only a few items have one, as items move between slabs', () => {
    for (const seed of [1, 2, 3]) {
      const random = seededRandom(seed);
      const ids = Array.from({ length: 4_000 }, (_, i) => `p${String(i).padStart(5, '0')}`);
      const model = new Map<string, RankItem>();
      const item = (playerId: string, subscore: number): RankItem => ({ sortScore: Math.floor(random() * 50), sortSubscore: subscore, achievedAt: Math.floor(random() * 3), playerId, displayName: playerId });
      for (const playerId of ids.slice(0, 3_000)) model.set(playerId, item(playerId, 0));
      const tree = RankTree.fromSorted([...model.values()].sort(compareRankKeys), 4);
      for (let i = 0; i < 6_000; i++) {
        const playerId = ids[Math.floor(random() * ids.length)]!;
        if (random() < 0.3) {
          expect(tree.remove(playerId)).toBe(model.delete(playerId));
        } else {
          const next = item(playerId, random() < 0.05 ? Math.floor(random() * 5) - 2 : 0);
          tree.upsert(next);
          model.set(playerId, next);
        }
      }
      tree.verifyStructure();
      const sorted = [...model.values()].sort(compareRankKeys).map(plain);
      expect(tree.itemsFrom(1, sorted.length + 1).map(plain)).toEqual(sorted);
      for (const [i, held] of sorted.entries()) if (i % 97 === 0) expect([tree.rankOf(held.playerId), plain(tree.itemOf(held.playerId)!)]).toEqual([i + 1, held]);
    }
  });

  it('hands back UUIDs as they came in, and keeps ids that only look like UUIDs as they are', () => {
    const ids = [...uuidIds, ...mixedIds, '3F2504E0-4F89-41D3-9A0C-0305E82C3301', '3f2504e0-4f89-41d3-9a0c-0305e82c330', '3f2504e0x4f89-41d3-9a0c-0305e82c3301', '3f2504e0-4f89-41d3-9a0c-0305e82c330g'];
    const items = [...new Set(ids)].map((playerId, i) => ({ sortScore: i, sortSubscore: 0, achievedAt: 0, playerId, displayName: `n${i}` }));
    const tree = RankTree.fromSorted(items);
    expect(tree.itemsFrom(1, items.length)).toEqual(items);
    for (const item of items) expect(tree.rankOf(item.playerId)).toBe(item.sortScore + 1);
    expect(tree.rankOf('3f2504e0-4f89-41d3-9a0c-0305e82c3301')).toBeUndefined();
  });

  it('finds every player among many UUIDs as the hash grows, shrinks and refills', () => {
    const ids = Array.from({ length: 5_000 }, (_, i) => `${(Math.imul(i, 0x9e3779b1) >>> 0).toString(16).padStart(8, '0')}-0000-4000-a000-${String(i).padStart(12, '0')}`);
    const tree = new RankTree();
    ids.forEach((playerId, i) => tree.upsert({ sortScore: i % 100, sortSubscore: -(i % 3), achievedAt: i, playerId, displayName: '' }));
    ids.filter((_, i) => i % 3 !== 0).forEach((playerId) => expect(tree.remove(playerId)).toBe(true));
    ids.forEach((playerId, i) => expect(tree.rankOf(playerId) !== undefined).toBe(i % 3 === 0));
    ids.forEach((playerId, i) => tree.upsert({ sortScore: -i, sortSubscore: 0, achievedAt: i, playerId, displayName: 'again' }));
    tree.verifyStructure();
    ids.forEach((playerId, i) => expect(tree.rankOf(playerId)).toBe(ids.length - i));
  });

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
        { sortScore: 2, sortSubscore: 0, achievedAt: 0, playerId: 'a', displayName: 'A' },
        { sortScore: 1, sortSubscore: 0, achievedAt: 0, playerId: 'b', displayName: 'B' },
      ]),
    ).toThrow(/rank order/);
    expect(() =>
      RankTree.fromSorted([
        { sortScore: 1, sortSubscore: 0, achievedAt: 0, playerId: 'a', displayName: 'A' },
        { sortScore: 2, sortSubscore: 0, achievedAt: 0, playerId: 'a', displayName: 'A' },
      ]),
    ).toThrow(/twice/);
    expect(() => new RankTree(3)).toThrow(RangeError);
  });
});

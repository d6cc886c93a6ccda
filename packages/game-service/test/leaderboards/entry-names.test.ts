import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EntryNames } from '../../src/leaderboards/entry-names.js';

describe('display names held by the rank engine', () => {
  it('give back every name as set, through renames, clears, growth and compaction', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            entry: fc.nat({ max: 299 }),
            // Up to 64 code points of any plane (the display name bound), or cleared.
            name: fc.option(fc.string({ unit: 'grapheme', maxLength: 64 }), { nil: undefined }),
          }),
          { maxLength: 3_000 },
        ),
        (operations) => {
          const names = new EntryNames(16);
          const model = new Map<number, string>();
          let capacity = 16;
          for (const { entry, name } of operations) {
            while (entry >= capacity) {
              capacity = Math.ceil(capacity * 1.5);
              names.resize(capacity);
            }
            if (name === undefined) {
              names.clear(entry);
              model.delete(entry);
            } else {
              names.set(entry, name);
              model.set(entry, name);
            }
          }
          for (let entry = 0; entry < capacity; entry++) expect(names.get(entry)).toBe(model.get(entry) ?? '');
        },
      ),
      { numRuns: 60 },
    );
  });

  it('keep names across many renames of the same entries (the arena compacts instead of growing)', () => {
    const names = new EntryNames(1_000);
    for (let round = 0; round < 200; round++) for (let entry = 0; entry < 1_000; entry++) names.set(entry, `Player ${entry} round ${round} 🎮`);
    for (let entry = 0; entry < 1_000; entry++) expect(names.get(entry)).toBe(`Player ${entry} round 199 🎮`);
    const liveBytes = Array.from({ length: 1_000 }, (_, entry) => Buffer.byteLength(`Player ${entry} round 199 🎮`)).reduce((sum, bytes) => sum + bytes, 0);
    // 200 rounds of names written: kept without compaction, they would take 200 times this.
    expect(names.arenaBytes).toBeLessThan(liveBytes * 5);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TupleMap } from '../src/query/tuple-map.js';

describe('TupleMap', () => {
  it('answers as a map keyed by the whole tuple, whatever its values hold', () => {
    // Values that a key joined into one string could confuse: separators, prefixes, numbers and their text.
    const value = fc.oneof(fc.constantFrom('', '|', '1:|', 'a|1:b', '0', 0, 1, '1', -0), fc.string({ maxLength: 4 }), fc.integer({ min: -3, max: 3 }));
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }).chain((length) => fc.array(fc.tuple(fc.array(value, { minLength: length, maxLength: length }), fc.integer()), { maxLength: 60 })), (writes) => {
        const map = new TupleMap<number>();
        const model = new Map<string, number>();
        const keyOf = (tuple: unknown[]) => JSON.stringify(tuple.map((item) => [typeof item, Object.is(item, -0) ? 0 : item]));
        for (const [tuple, written] of writes) {
          expect(map.get(tuple)).toBe(model.get(keyOf(tuple)));
          map.set(tuple, written);
          model.set(keyOf(tuple), written);
        }
        expect(map.size).toBe(model.size);
        for (const [tuple] of writes) expect(map.get(tuple)).toBe(model.get(keyOf(tuple)));
      }),
    );
  });

  it('keeps a tuple apart from its prefixes and from the same values in another order', () => {
    const map = new TupleMap<string>();
    map.set(['a', 'b'], 'ab');
    map.set(['b', 'a'], 'ba');
    expect(map.get(['a', 'b'])).toBe('ab');
    expect(map.get(['b', 'a'])).toBe('ba');
    expect(map.get(['a', 'c'])).toBeUndefined();
    expect(map.size).toBe(2);
  });
});

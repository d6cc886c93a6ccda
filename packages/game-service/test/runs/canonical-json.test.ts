import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonicalJson, contentHash } from '../../src/canonical-json.js';

function shuffleMembers(value: unknown, random: () => number): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => shuffleMembers(item, random));
  const entries = Object.entries(value as Record<string, unknown>);
  entries.sort(() => random() - 0.5);
  return Object.fromEntries(entries.map(([key, item]) => [key, shuffleMembers(item, random)]));
}

describe('canonical JSON', () => {
  it('sorts members at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}');
  });

  it('ignores member order, whatever the document', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer(), (value, seed) => {
        let state = seed;
        const random = () => ((state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
        const reordered = JSON.parse(JSON.stringify(shuffleMembers(value, random))) as unknown;
        expect(contentHash(reordered)).toBe(contentHash(value));
        expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });

  it('tells different content apart', () => {
    expect(contentHash({ a: 1 })).not.toBe(contentHash({ a: 2 }));
    expect(contentHash([1, 2])).not.toBe(contentHash([2, 1]));
    expect(contentHash({ a: '1' })).not.toBe(contentHash({ a: 1 }));
  });
});

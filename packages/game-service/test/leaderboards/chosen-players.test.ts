import { createHash, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chosenPlayers } from '../../src/leaderboards/chosen-players.js';

/** The set as defined: the ids named, lowered, and the caller, each once, in string order; the digest of them joined. */
function defined(named: readonly string[], callerId: string): { ids: string[]; digest: string } {
  const ids = [...new Set([...named.map((id) => id.toLowerCase()), callerId])].sort();
  return { ids, digest: createHash('sha256').update(ids.join(',')).digest('base64url').slice(0, 16) };
}

/** UUIDs that often share their first eight digits (the sort's numeric key), or all of them. */
const pool = Array.from({ length: 12 }, (_, i) => (i < 6 ? `0000abcd-0000-4000-8000-00000000000${i}` : randomUUID()));
const namedId = fc.oneof(
  fc.constantFrom(...pool),
  fc.constantFrom(...pool).map((id) => id.toUpperCase()),
  fc.uuid(),
);
/** Callers: the service's UUIDs, one of the named, or ids that are not UUIDs at all (sorted where they belong all the same). */
const caller = fc.oneof(fc.constantFrom(...pool), fc.uuid(), fc.constantFrom('caller', '', 'zzzzzzzz-not-a-uuid', '0000abcd'));

describe("chosen players (a friends' board's set)", () => {
  it('is the named ids, lowered, and the caller, each once, in string order, with the digest of that list', () => {
    fc.assert(
      fc.property(fc.array(namedId, { maxLength: 100 }), caller, fc.boolean(), (named, callerId, asQuery) => {
        const chosen = chosenPlayers(asQuery ? named.join(',') : named, callerId);
        expect({ ids: chosen.ids, digest: chosen.digest }).toEqual(defined(named, callerId));
      }),
      { numRuns: 500 },
    );
  });

  it('answers the same set, and digest, whatever the order, case and repetition of the ids (repetitions count toward the 100)', () => {
    const named = Array.from({ length: 95 }, () => randomUUID());
    const callerId = randomUUID();
    const first = chosenPlayers(named.join(','), callerId);
    const again = chosenPlayers([...named].reverse().map((id, i) => (i % 2 ? id.toUpperCase() : id)).concat(named.slice(0, 5)), callerId);
    expect(again.ids).toEqual(first.ids);
    expect(again.digest).toBe(first.digest);
    expect(first.ids).toHaveLength(96);
  });
});

import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTimestamp } from '../../src/leaderboards/iso-time.js';
import { LeaderboardAroundMeResponse, LeaderboardMeResponse, LeaderboardPageResponse } from '../../src/leaderboards/leaderboard-schemas.js';
import { compileLeaderboardSerializer, withPlainEntryStrings } from '../../src/leaderboards/leaderboard-serializers.js';

/** Every object schema with entry fields in `schema`, wherever it is nested. */
function entrySchemas(schema: unknown): Array<Record<string, { format?: string }>> {
  if (schema === null || typeof schema !== 'object') return [];
  const properties = (schema as { properties?: Record<string, { format?: string }> }).properties;
  const own = properties?.rank && properties.playerId ? [properties] : [];
  return [...own, ...Object.values(schema).flatMap(entrySchemas)];
}

// Names as players might choose them: quotes, backslashes, control characters, emoji, lone surrogates.
const displayName = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('"', '\\', '\n\t', '\u2028', '\ud800', 'Zoë 🎮', '</script>'));
const entry = fc.record({
  rank: fc.integer({ min: 1, max: 2 ** 31 }),
  playerId: fc.constant(null).map(() => randomUUID()),
  displayName,
  score: fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })),
  achievedAt: fc.integer({ min: -8.64e15, max: 8.64e15 }).map(isoTimestamp),
});
const head = {
  boardId: fc.string({ minLength: 1 }),
  period: fc.constantFrom('all', '2026-11-21', '2026-W47', '2026-11'),
  format: fc.constantFrom('integer' as const, 'decimal' as const, 'duration-ms' as const, 'duration-s' as const),
  unit: fc.option(fc.string({ minLength: 1, maxLength: 16 }), { nil: undefined }),
  total: fc.nat(),
};

const serialize = {
  page: compileLeaderboardSerializer(LeaderboardPageResponse),
  me: compileLeaderboardSerializer(LeaderboardMeResponse),
  aroundMe: compileLeaderboardSerializer(LeaderboardAroundMeResponse),
};

/** What a client reads: the value as JSON gives it back (lone surrogates and -0 as JSON has them). */
const asJson = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

describe('leaderboard response serializers', () => {
  it('mark only the entries\' player ids and times as needing no escaping, and leave the documented schemas alone', () => {
    for (const schema of [LeaderboardPageResponse, LeaderboardMeResponse, LeaderboardAroundMeResponse]) {
      const before = JSON.stringify(schema);
      const derived = withPlainEntryStrings(schema);
      expect(JSON.stringify(schema)).toBe(before);
      const entries = entrySchemas(derived);
      expect(entries.length).toBeGreaterThan(0);
      for (const properties of entries) {
        expect(properties.playerId!.format).toBe('unsafe');
        expect(properties.achievedAt!.format).toBe('unsafe');
        expect(properties.displayName!.format).toBeUndefined();
      }
      // Everything else is the documented schema.
      const strip = (text: string) => text.replaceAll(',"format":"unsafe"', '').replaceAll('"format":"unsafe",', '').replaceAll('"format":"date-time",', '');
      expect(strip(JSON.stringify(derived))).toBe(strip(before));
    }
  });

  it('write every response as the JSON of its value, whatever the display names hold', () => {
    fc.assert(
      fc.property(fc.record({ boardId: head.boardId, period: head.period, format: head.format, unit: head.unit, entries: fc.array(entry, { maxLength: 25 }), nextCursor: fc.option(fc.string()) }), (page) => {
        expect(JSON.parse(serialize.page(page))).toEqual(asJson(page));
      }),
    );
    fc.assert(
      fc.property(fc.record({ ...head, entry: fc.option(entry), neighbors: fc.option(fc.array(entry, { maxLength: 20 }), { nil: undefined }) }), (me) => {
        const value = me.neighbors === undefined ? { boardId: me.boardId, period: me.period, format: me.format, unit: me.unit, total: me.total, entry: me.entry } : me;
        expect(JSON.parse(serialize.me(value))).toEqual(asJson(value));
      }),
    );
    fc.assert(
      fc.property(fc.record({ ...head, entries: fc.array(entry, { maxLength: 21 }) }), (aroundMe) => {
        expect(JSON.parse(serialize.aroundMe(aroundMe))).toEqual(asJson(aroundMe));
      }),
    );
  });
});

import { describe, expect, it } from 'vitest';
import { ApiError } from '@playstack/server-kit';
import { isCurrentPeriod, parsePeriodKey, periodKeyAt, periodKeysFor, resolvePeriod } from '../../src/leaderboards/periods.js';
import type { RankedBoard } from '../../src/leaderboards/ranked-board.js';

const at = (iso: string) => new Date(iso).getTime();
const board: RankedBoard = { id: 'high', order: 'desc', operator: 'best', periods: ['all', 'daily', 'weekly', 'monthly'] };

function periodError(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error.code;
    throw error;
  }
  return undefined;
}

describe('period keys', () => {
  it('switches the daily key at UTC midnight', () => {
    expect(periodKeyAt('daily', at('2026-11-21T23:59:59.999Z'))).toBe('2026-11-21');
    expect(periodKeyAt('daily', at('2026-11-22T00:00:00.000Z'))).toBe('2026-11-22');
  });

  it('uses ISO weeks starting on Monday, with the ISO week-year at year ends', () => {
    expect(periodKeyAt('weekly', at('2026-11-21T12:00:00Z'))).toBe('2026-W47');
    expect(periodKeyAt('weekly', at('2026-11-22T23:59:59.999Z'))).toBe('2026-W47');
    expect(periodKeyAt('weekly', at('2026-11-23T00:00:00Z'))).toBe('2026-W48');
    // 2026 has 53 ISO weeks; its last week runs into January 2027.
    expect(periodKeyAt('weekly', at('2027-01-03T23:59:59Z'))).toBe('2026-W53');
    expect(periodKeyAt('weekly', at('2027-01-04T00:00:00Z'))).toBe('2027-W01');
    // 29 December 2025 (a Monday) already belongs to ISO week 1 of 2026.
    expect(periodKeyAt('weekly', at('2025-12-29T00:00:00Z'))).toBe('2026-W01');
  });

  it('switches the monthly key at the first of the month, UTC', () => {
    expect(periodKeyAt('monthly', at('2026-11-30T23:59:59.999Z'))).toBe('2026-11');
    expect(periodKeyAt('monthly', at('2026-12-01T00:00:00Z'))).toBe('2026-12');
  });

  it('gives a result one key per period the board keeps', () => {
    expect(periodKeysFor(board, at('2026-11-21T10:00:00Z')).map((p) => p.key)).toEqual(['all', '2026-11-21', '2026-W47', '2026-11']);
  });

  it('parses keys into their UTC ranges and refuses impossible dates', () => {
    expect(parsePeriodKey('2026-W53')).toEqual({ kind: 'weekly', startMs: at('2026-12-28T00:00:00Z'), endMs: at('2027-01-04T00:00:00Z') });
    expect(parsePeriodKey('2024-02-29')?.kind).toBe('daily');
    for (const bad of ['2026-02-29', '2025-W53', '2026-W00', '2026-13', '2026-00', '2026-1-1', '26-11-21', 'yesterday', '']) {
      expect(parsePeriodKey(bad), bad).toBeUndefined();
    }
  });

  it('knows whether a key is the current period', () => {
    const now = at('2026-11-21T10:00:00Z');
    expect(isCurrentPeriod({ period: 'all' }, now)).toBe(true);
    expect(isCurrentPeriod({ period: '2026-11-21' }, now)).toBe(true);
    expect(isCurrentPeriod({ period: '2026-11-20' }, now)).toBe(false);
    expect(isCurrentPeriod({ period: '2026-W47' }, now)).toBe(true);
    expect(isCurrentPeriod({ period: '2026-10' }, now)).toBe(false);
  });
});

describe('resolving a requested period', () => {
  const now = at('2026-11-21T10:00:00Z');

  it('maps the current-period names and accepts past keys', () => {
    expect(resolvePeriod(board, 'all', now).key).toBe('all');
    expect(resolvePeriod(board, 'daily', now).key).toBe('2026-11-21');
    expect(resolvePeriod(board, 'weekly', now).key).toBe('2026-W47');
    expect(resolvePeriod(board, 'monthly', now).key).toBe('2026-11');
    expect(resolvePeriod(board, '2025-02-01', now)).toEqual({ kind: 'daily', key: '2025-02-01' });
  });

  it('refuses malformed keys, future periods and kinds the board does not keep with invalid-period', () => {
    expect(periodError(() => resolvePeriod(board, '2026-11-31', now))).toBe('invalid-period');
    expect(periodError(() => resolvePeriod(board, 'hourly', now))).toBe('invalid-period');
    expect(periodError(() => resolvePeriod(board, '2026-11-22', now))).toBe('invalid-period');
    const allTimeOnly: RankedBoard = { ...board, periods: ['all'] };
    expect(periodError(() => resolvePeriod(allTimeOnly, 'daily', now))).toBe('invalid-period');
    expect(periodError(() => resolvePeriod(allTimeOnly, '2026-W47', now))).toBe('invalid-period');
  });
});

describe('event windows', () => {
  const cup: RankedBoard = { id: 'cup', order: 'desc', operator: 'best', periods: ['event', 'daily'], event: { startsAt: '2026-11-27T18:00:00Z', endsAt: '2026-11-29T18:00:00Z' } };
  const race: RankedBoard = { id: 'race', order: 'desc', operator: 'sum', periods: ['event'], event: { anchor: '2026-11-27T18:00:00+01:00', every: { hours: 6 }, lasts: { hours: 2 } } };

  it('keys a window by its starting minute (UTC) and counts a result on every period of the board only inside it', () => {
    expect(periodKeysFor(cup, at('2026-11-27T17:59:59.999Z'))).toEqual([]);
    expect(periodKeysFor(cup, at('2026-11-28T10:00:00Z'))).toEqual([
      { kind: 'event', key: '2026-11-27T18:00Z', window: { startMs: at('2026-11-27T18:00:00Z'), endMs: at('2026-11-29T18:00:00Z') } },
      { kind: 'daily', key: '2026-11-28' },
    ]);
    expect(periodKeysFor(cup, at('2026-11-29T18:00:00Z'))).toEqual([]);
  });

  it('places a recurring result in the window open at its time, and in none between windows', () => {
    expect(periodKeysFor(race, at('2026-11-27T17:30:00Z'))).toMatchObject([{ key: '2026-11-27T17:00Z' }]);
    expect(periodKeysFor(race, at('2026-11-27T19:00:00Z'))).toEqual([]);
    expect(periodKeysFor(race, at('2026-11-28T05:59:00Z'))).toMatchObject([{ key: '2026-11-28T05:00Z', window: { endMs: at('2026-11-28T07:00:00Z') } }]);
    expect(periodKeysFor(race, at('2026-11-27T16:59:00Z'))).toEqual([]);
  });

  it('resolves event to the live window, else the last one started, else the first; and a window by its key, upcoming ones included', () => {
    expect(resolvePeriod(race, 'event', at('2026-11-27T12:00:00Z')).key).toBe('2026-11-27T17:00Z');
    expect(resolvePeriod(race, 'event', at('2026-11-27T18:30:00Z')).key).toBe('2026-11-27T17:00Z');
    expect(resolvePeriod(race, 'event', at('2026-11-27T23:00:00Z')).key).toBe('2026-11-27T23:00Z');
    expect(resolvePeriod(race, '2026-12-01T05:00Z', at('2026-11-27T23:00:00Z')).key).toBe('2026-12-01T05:00Z');
    expect(resolvePeriod(cup, 'event', at('2027-01-01T00:00:00Z'))).toMatchObject({ kind: 'event', key: '2026-11-27T18:00Z' });
    expect(periodError(() => resolvePeriod(race, '2026-11-27T18:00Z', at('2026-11-28T00:00:00Z')))).toBe('invalid-period');
    expect(periodError(() => resolvePeriod(race, '2026-11-27T11:00Z', at('2026-11-28T00:00:00Z')))).toBe('invalid-period');
    expect(periodError(() => resolvePeriod(board, 'event', at('2026-11-28T00:00:00Z')))).toBe('invalid-period');
  });

  it('knows an event set is current only inside its window', () => {
    const window = { startMs: at('2026-11-27T18:00:00Z'), endMs: at('2026-11-29T18:00:00Z') };
    expect(isCurrentPeriod({ period: '2026-11-27T18:00Z', window }, at('2026-11-27T17:59:00Z'))).toBe(false);
    expect(isCurrentPeriod({ period: '2026-11-27T18:00Z', window }, at('2026-11-28T00:00:00Z'))).toBe(true);
    expect(isCurrentPeriod({ period: '2026-11-27T18:00Z', window }, at('2026-11-29T18:00:00Z'))).toBe(false);
  });
});

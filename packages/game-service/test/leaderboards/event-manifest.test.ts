import { describe, expect, it } from 'vitest';
import { checkManifest } from '../../src/manifest/manifest-check.js';
import { adapterTypes } from '../../src/runs/adapters/registry.js';
import { arenaGame } from './leaderboard-fixtures.js';

/** A manifest whose one game has one board per given event settings (and periods). */
function withEvents(...boards: Array<{ periods?: string[]; event?: unknown }>): unknown {
  const game = arenaGame('events');
  const base = game.boards[0]!;
  return { games: [{ ...game, boards: boards.map((b, i) => ({ ...base, id: `b${i}`, periods: b.periods ?? ['event'], ...(b.event === undefined ? {} : { event: b.event }) })) }] };
}

describe('manifest check of event boards', () => {
  it('accepts a window, a recurring schedule, a shorter window per cycle and a cap beside the calendar periods', () => {
    const result = checkManifest(
      withEvents(
        { event: { startsAt: '2026-11-27T18:00:00Z', endsAt: '2026-11-29T18:00:00Z', maxEntrants: 1000 } },
        { periods: ['event', 'all', 'daily'], event: { anchor: '2026-11-27T00:00+01:00', every: { days: 7 } } },
        { event: { anchor: '2026-11-27T18:00Z', every: { hours: 6 }, lasts: { hours: 2 } } },
      ),
      adapterTypes,
    );
    expect(result).toMatchObject({ ok: true });
  });

  it('lists every problem of every event board at once, with its path', () => {
    const result = checkManifest(
      withEvents(
        { event: { startsAt: '2026-11-29T18:00:00Z', endsAt: '2026-11-27T18:00:00Z' } },
        { event: { startsAt: '2026-11-27T18:00:30Z' } },
        { event: { startsAt: '2026-11-27T18:00Z', endsAt: '2026-11-28T18:00Z', anchor: '2026-11-27T18:00Z' } },
        { event: {} },
        { event: { anchor: 'tomorrow', every: { days: 1, hours: 2 }, lasts: { hours: 1 } } },
        { event: { anchor: '2026-11-27T18:00Z', every: { hours: 2 }, lasts: { hours: 3 }, maxEntrants: 0 } },
        { periods: ['all'], event: { startsAt: '2026-11-27T18:00Z', endsAt: '2026-11-28T18:00Z' } },
        { periods: ['event', 'daily'] },
        { event: { anchor: '2026-11-27T18:00Z' } },
      ),
      adapterTypes,
    );
    expect(result.ok).toBe(false);
    const problems = result.ok ? [] : result.problems;
    expect(problems).toEqual(
      expect.arrayContaining([
        { path: 'games[0].boards[0].event.endsAt', reason: 'must be after startsAt' },
        { path: 'games[0].boards[1].event.startsAt', reason: 'must be a whole minute (no seconds): windows are named by their starting minute' },
        { path: 'games[0].boards[1].event.endsAt', reason: 'is required for a window' },
        { path: 'games[0].boards[2].event', reason: 'is one window (startsAt, endsAt) or a recurring schedule (anchor, every, lasts), not both' },
        { path: 'games[0].boards[3].event', reason: 'needs a window (startsAt and endsAt) or a recurring schedule (anchor and every)' },
        { path: 'games[0].boards[4].event.anchor', reason: 'must be an ISO 8601 time with a zone, e.g. 2026-11-27T18:00:00Z' },
        { path: 'games[0].boards[4].event.every', reason: 'must give exactly one of days or hours' },
        { path: 'games[0].boards[5].event.lasts', reason: 'must not be longer than every (windows would overlap)' },
        { path: 'games[0].boards[5].event.maxEntrants', reason: 'must be >= 1' },
        { path: 'games[0].boards[6].periods', reason: 'must include "event": an event board keeps a period for each window' },
        { path: 'games[0].boards[7].periods', reason: 'keeps the event period, but the board has no event (startsAt and endsAt, or anchor and every)' },
        { path: 'games[0].boards[8].event.every', reason: 'is required for a recurring schedule' },
      ]),
    );
    expect(problems).toHaveLength(12);
  });
});

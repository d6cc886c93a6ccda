import { describe, expect, it } from 'vitest';
import { checkManifest } from '../../src/manifest/manifest-check.js';
import { adapterTypes } from '../../src/runs/adapters/registry.js';
import { arenaGame } from './leaderboard-fixtures.js';

/** A manifest whose one game has the arena's `high` board (best, desc) changed by each of `changes`. */
function withBoards(...changes: Array<Record<string, unknown>>): unknown {
  const game = arenaGame('tiebreaks');
  const base = game.boards[0]!;
  return { games: [{ ...game, boards: changes.map((change, i) => ({ ...base, id: `b${i}`, ...change })) }] };
}

describe('manifest check of subscores and metadata', () => {
  it('accepts a subscore in either order on best and latest boards, and metadata within its bound', () => {
    const result = checkManifest(
      withBoards(
        { subscore: { value: 'durationMs', order: 'asc' } },
        { order: 'asc', operator: 'latest', subscore: { value: 'durationMs', order: 'desc' }, metadata: { values: ['durationMs', 'score'] } },
        { operator: 'sum', metadata: { values: ['durationMs'], maxBytes: 64 } },
        { metadata: { values: ['durationMs', 'score'], maxBytes: 1024 } },
      ),
      adapterTypes,
    );
    expect(result).toMatchObject({ ok: true });
  });

  it('lists every subscore and metadata problem at once, with its path and a reason', () => {
    const result = checkManifest(
      withBoards(
        { operator: 'sum', subscore: { value: 'durationMs', order: 'asc' } },
        { subscore: { value: 'moves', order: 'asc' } },
        { subscore: { value: 'durationMs', order: 'up' } },
        { metadata: { values: ['score', 'maxTile'] } },
        { metadata: { values: ['durationMs', 'score'], maxBytes: 40 } },
        { metadata: { values: ['score'], maxBytes: 4096 } },
        { metadata: { values: [] } },
        { metadata: { values: ['score', 'score'] } },
      ),
      adapterTypes,
    );
    expect(result.ok).toBe(false);
    const problems = result.ok ? [] : result.problems;
    expect(problems).toEqual(
      expect.arrayContaining([
        { path: 'games[0].boards[0].subscore', reason: "a sum board cannot have a subscore: its entry adds many runs, and no one run's subscore stands for the sum" },
        { path: 'games[0].boards[1].subscore.value', reason: 'adapter type "bounded-score" has no output "moves"; its outputs: score, durationMs' },
        { path: 'games[0].boards[2].subscore.order', reason: 'must be one of "asc", "desc"' },
        { path: 'games[0].boards[3].metadata.values[1]', reason: 'adapter type "bounded-score" has no output "maxTile"; its outputs: score, durationMs' },
        {
          path: 'games[0].boards[4].metadata',
          reason:
            'its values can take up to 72 bytes of JSON (names and numbers of up to 24 characters), more than maxBytes 40: keep fewer values or raise maxBytes (at most 1024)',
        },
        { path: 'games[0].boards[5].metadata.maxBytes', reason: 'must be <= 1024' },
        { path: 'games[0].boards[6].metadata.values', reason: 'must NOT have fewer than 1 items' },
        { path: 'games[0].boards[7].metadata.values', reason: 'must NOT have duplicate items (items ## 1 and 0 are identical)' },
      ]),
    );
    expect(problems).toHaveLength(8);
  });
});

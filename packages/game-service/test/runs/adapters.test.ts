import { describe, expect, it } from 'vitest';
import { boundedScore } from '../../src/runs/adapters/bounded-score.js';
import { mulberry32, replay2048, slide } from '../../src/runs/adapters/game-2048.js';
import { adapterTypes } from '../../src/runs/adapters/registry.js';
import { replay2048Adapter } from '../../src/runs/adapters/replay-2048.js';

const demoOptions = { minScore: 0, maxScore: 1_000_000_000, maxScorePerSecond: 1_000_000 };

describe('bounded-score adapter', () => {
  it('derives score and durationMs from plausible evidence', () => {
    expect(boundedScore.derive({ score: 4200, durationMs: 60_000 }, { options: demoOptions })).toEqual({
      ok: true,
      result: { score: 4200, durationMs: 60_000 },
      hintMismatches: [],
    });
  });

  it('accepts the bounds themselves and a rate exactly at the maximum', () => {
    const options = { minScore: 10, maxScore: 100, maxScorePerSecond: 10 };
    expect(boundedScore.derive({ score: 10, durationMs: 1000 }, { options }).ok).toBe(true);
    expect(boundedScore.derive({ score: 100, durationMs: 10_000 }, { options }).ok).toBe(true);
  });

  it('refuses a score below the minimum or above the maximum, saying why', () => {
    const options = { minScore: 10, maxScore: 100 };
    expect(boundedScore.derive({ score: 9, durationMs: 1000 }, { options })).toEqual({ ok: false, reason: 'score 9 is below the minimum 10' });
    expect(boundedScore.derive({ score: 101, durationMs: 1000 }, { options })).toEqual({
      ok: false,
      reason: 'score 101 is above the maximum 100',
    });
  });

  it('refuses a score earned faster than maxScorePerSecond allows, including in zero time', () => {
    const options = { maxScorePerSecond: 10 };
    expect(boundedScore.derive({ score: 101, durationMs: 10_000 }, { options })).toMatchObject({ ok: false });
    expect(boundedScore.derive({ score: 1, durationMs: 0 }, { options })).toMatchObject({ ok: false });
    expect(boundedScore.derive({ score: 0, durationMs: 0 }, { options }).ok).toBe(true);
  });

  it('defaults to scores from 0 with no rate bound when the game gives no options', () => {
    expect(boundedScore.derive({ score: 9_000_000_000, durationMs: 1 }, { options: {} }).ok).toBe(true);
    expect(boundedScore.derive({ score: -1, durationMs: 1 }, { options: {} }).ok).toBe(false);
  });

  it('compares hints without using them and reports each mismatch', () => {
    const derivation = boundedScore.derive({ score: 50, durationMs: 1000, hints: { score: 50, durationMs: 999, combo: 3 } }, { options: {} });
    expect(derivation).toEqual({
      ok: true,
      result: { score: 50, durationMs: 1000 },
      hintMismatches: [
        { name: 'combo', claimed: 3, derived: null },
        { name: 'durationMs', claimed: 999, derived: 1000 },
      ],
    });
  });
});

describe('reference 2048 simulation', () => {
  it('uses the standard mulberry32 sequence', () => {
    const random = mulberry32(1);
    expect([random(), random(), random()]).toEqual([0.6270739405881613, 0.002735721180215478, 0.5274470399599522]);
  });

  it('slides towards the edge and merges each pair once, nearest the edge first', () => {
    const board = [2, 2, 2, 2, 2, 2, 4, 0, 4, 0, 4, 8, 0, 0, 0, 2];
    expect(slide(board, 'L')).toBe(4 + 4 + 4 + 8);
    expect(board).toEqual([4, 4, 0, 0, 4, 4, 0, 0, 8, 8, 0, 0, 2, 0, 0, 0]);
    const column = [2, 0, 0, 0, 2, 0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0];
    expect(slide(column, 'D')).toBe(4 + 8);
    expect(column).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 8, 0, 0, 0]);
    expect(slide([2, 4, 8, 16, 4, 8, 16, 32, 2, 4, 8, 16, 4, 8, 16, 32], 'R')).toBe(-1);
  });

  it('replays a recorded game to the same outcome as when the rules were fixed', () => {
    // A change here changes every stored derivation: bump replay-2048's version with it.
    const random = mulberry32(99);
    const moves = Array.from({ length: 300 }, () => 'UDLR'[Math.floor(random() * 4)]).join('');
    expect(replay2048(2026, moves)).toEqual({
      score: 1328,
      maxTile: 128,
      moves: 131,
      board: [2, 4, 32, 4, 4, 8, 4, 32, 8, 128, 8, 2, 4, 64, 2, 4],
    });
  });

  it('starts with two tiles and ignores moves that change nothing', () => {
    const start = replay2048(7, '');
    expect(start.board.filter((v) => v !== 0)).toHaveLength(2);
    expect(start.moves).toBe(0);
    expect(start.score).toBe(0);
    // Replaying any moves from the same seed is deterministic.
    expect(replay2048(7, 'LURDLURDDDLL')).toEqual(replay2048(7, 'LURDLURDDDLL'));
  });

  it('merges each pair once per move and scores the merged values', () => {
    // Find a seed whose opening board has two equal tiles in one row, then merge them left.
    let seed = 0;
    for (; seed < 10_000; seed += 1) {
      const board = replay2048(seed, '').board;
      const row = board.slice(0, 4).filter((v) => v !== 0);
      if (row.length === 2 && row[0] === row[1]) break;
    }
    const before = replay2048(seed, '').board;
    const tile = before.slice(0, 4).find((v) => v !== 0)!;
    const after = replay2048(seed, 'L');
    expect(after.score).toBe(tile * 2);
    expect(after.board[0]).toBe(tile * 2);
    expect(after.moves).toBe(1);
  });

  it('a long random game keeps the score equal to what its merges produced', () => {
    const random = mulberry32(99);
    const moves = Array.from({ length: 2000 }, () => 'UDLR'[Math.floor(random() * 4)]).join('');
    const outcome = replay2048(12345, moves);
    expect(outcome.score).toBeGreaterThan(1000);
    expect(outcome.maxTile).toBeGreaterThanOrEqual(128);
    // Every tile on the board came from spawns of 2 or 4; the board's sum never exceeds them.
    expect(outcome.board.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(4 * (outcome.moves + 2));
  });
});

describe('replay-2048 adapter', () => {
  it('derives score, maxTile and moves by replaying the evidence', () => {
    const outcome = replay2048(42, 'LDRULDRULLDD');
    expect(replay2048Adapter.derive({ seed: 42, moves: 'LDRULDRULLDD' }, { options: {} })).toEqual({
      ok: true,
      result: { score: outcome.score, maxTile: outcome.maxTile, moves: outcome.moves },
      hintMismatches: [],
    });
  });

  it('derives the true score when the claimed score lies, and flags the lie', () => {
    const truth = replay2048(42, 'LDRULDRULLDD');
    const derivation = replay2048Adapter.derive({ seed: 42, moves: 'LDRULDRULLDD', hints: { score: 999_999 } }, { options: {} });
    expect(derivation).toEqual({
      ok: true,
      result: { score: truth.score, maxTile: truth.maxTile, moves: truth.moves },
      hintMismatches: [{ name: 'score', claimed: 999_999, derived: truth.score }],
    });
  });

  it('an honest hint is no mismatch', () => {
    const truth = replay2048(42, 'LDRULDRU');
    const derivation = replay2048Adapter.derive({ seed: 42, moves: 'LDRULDRU', hints: { score: truth.score } }, { options: {} });
    expect(derivation).toMatchObject({ ok: true, hintMismatches: [] });
  });

  it('refuses more moves than the game allows', () => {
    expect(replay2048Adapter.derive({ seed: 1, moves: 'LR'.repeat(6) }, { options: { maxMoves: 10 } })).toEqual({
      ok: false,
      reason: '12 moves recorded; this game allows at most 10',
    });
  });
});

describe('adapter type registry', () => {
  it('holds every built-in type by id, each declaring its outputs and schemas', () => {
    expect([...adapterTypes.keys()].sort()).toEqual(['bounded-score', 'replay-2048']);
    for (const type of adapterTypes.values()) {
      expect(type.outputs.length).toBeGreaterThan(0);
      expect(type.payloadSchema).toMatchObject({ type: 'object' });
      expect(type.optionsSchema).toMatchObject({ type: 'object' });
      expect(type.version).toBeGreaterThanOrEqual(1);
    }
  });
});

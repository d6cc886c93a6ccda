import fc from 'fast-check';
import { expect, it } from 'vitest';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import type { GameDefinition } from '../../src/manifest/manifest-schema.js';
import { insertEntriesIfAbsent } from '../../src/leaderboards/leaderboard-store.js';
import { applyInRacingBatches, describeEachRedisVariant, expectEngineAgreesWithSql, tieProneScore } from '../support/rank-consistency-harness.js';
import { arenaGame, recordResult } from './leaderboard-fixtures.js';

const playerCount = 40;
const operationsPerRun = 1_000;
const runs = 2;
/** Operations started together, so writers of the same player race each other. */
const concurrency = 8;

const operation = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record({
      kind: fc.constant('record' as const),
      player: fc.nat(playerCount - 1),
      score: tieProneScore,
      durationMs: fc.integer({ min: 1, max: 5 }),
      // Results arrive a little out of order, like queued offline runs.
      lateByMs: fc.constantFrom(0, 0, 0, 1_000, 3_600_000),
      // Players change their names now and then; the engine serves names, so it must follow.
      renamed: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('erase' as const), player: fc.nat(playerCount - 1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('tick' as const), ms: fc.constantFrom(1, 1_000, 3_600_000, 6 * 3_600_000) }) },
);

/**
 * Every operator and both orders, with a daily period for rollovers; few sets keep the runs
 * quick. Two boards break ties on the score by the run's duration, in opposite directions (and
 * one keeps metadata), so the engine and SQL must agree on subscores too.
 */
function consistencyGame(id: string): GameDefinition {
  const arena = arenaGame(id);
  const keep = (boardId: string, periods: GameDefinition['boards'][number]['periods']) => ({ ...arena.boards.find((b) => b.id === boardId)!, periods });
  const high = keep('high', ['all', 'daily']);
  return {
    ...arena,
    boards: [
      high,
      keep('latest', ['all']),
      keep('total', ['all']),
      keep('fastest', ['all']),
      { ...high, id: 'high-quickest', subscore: { value: 'durationMs', order: 'asc' }, metadata: { values: ['durationMs'] } },
      { ...keep('latest', ['all', 'daily']), id: 'latest-longest', order: 'asc', subscore: { value: 'durationMs', order: 'desc' } },
    ],
  };
}

/** Long enough for PostgreSQL and Redis on a busy CI machine; typically a few seconds. */
const propertyTimeoutMs = 120_000;

describeEachDatabase('rank engine and SQL', (database) => {
  describeEachRedisVariant(
    database,
    (variantName) => Array.from({ length: runs + 1 }, (_, i) => consistencyGame(`consistency-${variantName}-${i}`)),
    (suite) => {
      const { clock, games, freshGame } = suite;
      it('agree after thousands of concurrent writes and erasures across period rollovers', async () => {
        await fc.assert(
          fc.asyncProperty(fc.array(operation, { minLength: operationsPerRun, maxLength: operationsPerRun }), async (operations) => {
            const game = freshGame();
            await applyInRacingBatches(operations, concurrency, async (op) => {
              if (op.kind === 'tick') {
                clock.advance(op.ms);
                return;
              }
              const playerId = `player-${op.player}`;
              if (op.kind === 'erase') {
                await suite.app.playerErasure.erase(suite.app.database, { gameId: game.id, playerId }, suite.app.log);
                return;
              }
              await recordResult(suite.app, game, { id: playerId, displayName: `Player ${op.player}${op.renamed ? ' (renamed)' : ''}` }, { score: op.score, durationMs: op.durationMs }, clock.now() - op.lateByMs);
            });
            const report = await expectEngineAgreesWithSql(suite.app, game.id);
            expect(report.some((set) => set.sqlTotal > 0)).toBe(true);
          }),
          { numRuns: runs, endOnFailure: true },
        );
      }, propertyTimeoutMs);

      it('reports a set whose SQL rows changed behind the engine', async () => {
        const game = games[runs]!;
        await recordResult(suite.app, game, { id: 'known' }, { score: 10, durationMs: 1 });
        // Once the engine holds the set (a shared engine loads a set it has not seen in the background).
        await suite.app.leaderboards.ranks.checkConsistency();
        const unseen = { playerId: 'unseen', displayName: 'Unseen', score: 99, subscore: 0, achievedAt: clock.now() };
        await insertEntriesIfAbsent(suite.app.database.db, game.id, [{ boardId: 'high', period: 'all', entry: unseen }], clock.now());
        const report = await suite.app.leaderboards.ranks.checkConsistency();
        expect(report.find((s) => s.setId === `${game.id}:high:all`)).toEqual({ setId: `${game.id}:high:all`, engineTotal: 1, sqlTotal: 2, firstDifferenceAt: 1 });
      });
    },
  );
});

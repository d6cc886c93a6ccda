import fc from 'fast-check';
import { expect, it } from 'vitest';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import type { GameDefinition } from '../../src/manifest/manifest-schema.js';
import { insertEntriesIfAbsent } from '../../src/leaderboards/leaderboard-store.js';
import { rankedSetOf } from '../../src/leaderboards/periods.js';
import type { GameApp } from '../../src/database.js';
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
    (variantName) => Array.from({ length: runs + 3 }, (_, i) => consistencyGame(`consistency-${variantName}-${i}`)),
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

      /**
       * A player on the engine with 10 whose next run (20) commits, and then the player's high
       * score changes to 5 in SQL behind the engine (as another writer's committed change would),
       * before that run publishes: the run's unpublished standings.
       */
      async function runThenChangeBehind(game: GameDefinition, playerId: string, app: GameApp = suite.app) {
        await recordResult(app, game, { id: playerId }, { score: 10, durationMs: 1 });
        await app.leaderboards.ranks.checkConsistency();
        const pending = await app.database.db.transaction().execute(async (trx) =>
          app.leaderboards.recordScores(trx, { game, playerId, displayName: playerId, adapterId: 'score', result: { score: 20, durationMs: 1 }, achievedAt: clock.now() }),
        );
        await app.database.db.updateTable('leaderboard_entries').set({ score: 5 }).where('game_id', '=', game.id).where('board_id', '=', 'high').where('player_id', '=', playerId).execute();
        return pending;
      }

      it("a run's publish reads SQL again when another sync read it after the run's transaction began", async () => {
        const game = games[runs + 1]!;
        const pending = await runThenChangeBehind(game, 'raced');
        // That change is synced before the run publishes: the run's own rows are older than SQL's now.
        await suite.app.leaderboards.ranks.syncChangedPlayer(game.id, 'raced');
        await pending.publish();
        await expectEngineAgreesWithSql(suite.app, game.id);
      });

      it('a run publishes the rows its transaction wrote without reading them again (in-process engine; a shared one reads SQL)', async () => {
        const game = games[runs + 2]!;
        const standings = await (await runThenChangeBehind(game, 'trusted')).publish();
        expect(standings.find((s) => s.boardId === 'high' && s.period === 'all')?.score).toBe(20);
        const held = await suite.app.leaderboards.ranks.entriesOfPlayers(rankedSetOf(game.id, game.boards.find((b) => b.id === 'high')!, { key: 'all' }), ['trusted']);
        expect(held.map((e) => e.score)).toEqual([suite.app.leaderboards.ranks.engineKind === 'in-process' ? 20 : 5]);
      });
    },
  );
});

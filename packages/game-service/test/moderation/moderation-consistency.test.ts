import fc from 'fast-check';
import { expect, it } from 'vitest';
import { ApiError } from '@playstack/server-kit';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import type { GameDefinition } from '../../src/manifest/manifest-schema.js';
import { devSignIn } from '../support/identity-fixtures.js';
import { applyInRacingBatches, describeEachRedisVariant, expectEngineAgreesWithSql, tieProneScore } from '../support/rank-consistency-harness.js';
import { arenaGame } from '../leaderboards/leaderboard-fixtures.js';

const playerCount = 12;
const operationsPerRun = 240;
const runs = 2;
/** Operations started together, so moderation races the same player's runs. */
const concurrency = 4;
const operator = { actor: 'property@example.com', reason: 'property test' };

const operation = fc.oneof(
  {
    weight: 10,
    arbitrary: fc.record({
      kind: fc.constant('run' as const),
      player: fc.nat(playerCount - 1),
      score: tieProneScore,
      // Few durations: the boards with a subscore see ties on the score broken by it, and ties on both.
      durationMs: fc.constantFrom(100, 200, 300),
      // A third of the runs are flagged (their hints disagree).
      flagged: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('hide' as const), player: fc.nat(playerCount - 1), shadow: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('unhide' as const), player: fc.nat(playerCount - 1) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('reject' as const), player: fc.nat(playerCount - 1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('remove' as const), player: fc.nat(playerCount - 1), board: fc.constantFrom('high', 'latest', 'total') }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('tick' as const), ms: fc.constantFrom(1_000, 3_600_000, 8 * 3_600_000) }) },
);

/** Most players a race window takes: fewer than play, so newcomers are refused too. */
const raceMaxEntrants = 8;

/**
 * Every operator, with daily periods for rollovers; few sets keep the runs quick. Boards with a
 * subscore (the run's duration) in both directions, under a desc and an asc score, one of them
 * keeping metadata, and an event board with one too. Two event boards end windows during the sequence: a cup (one window, from two hours in to 18 hours in,
 * beside its all-time period) and a capped race (a four-hour window every six hours).
 */
function moderatedGame(id: string): GameDefinition {
  const arena = arenaGame(id);
  const keep = (boardId: string, periods: GameDefinition['boards'][number]['periods']) => ({ ...arena.boards.find((b) => b.id === boardId)!, periods });
  const source = { adapter: 'score', value: 'score' };
  return {
    ...arena,
    boards: [
      keep('high', ['all', 'daily']),
      keep('latest', ['all']),
      keep('total', ['all', 'daily']),
      {
        id: 'quick',
        name: 'High score, quickest first',
        order: 'desc',
        operator: 'best',
        periods: ['all', 'daily'],
        source,
        subscore: { value: 'durationMs', order: 'asc' },
        metadata: { values: ['durationMs', 'score'] },
      },
      { id: 'lowest-longest', name: 'Low score, longest first', order: 'asc', operator: 'latest', periods: ['all'], source, subscore: { value: 'durationMs', order: 'desc' } },
      {
        id: 'cup',
        name: 'Cup',
        order: 'desc',
        operator: 'best',
        periods: ['event', 'all'],
        source,
        subscore: { value: 'durationMs', order: 'desc' },
        event: { startsAt: '2026-11-21T22:00:00Z', endsAt: '2026-11-22T14:00:00Z' },
      },
      {
        id: 'race',
        name: 'Race',
        order: 'desc',
        operator: 'sum',
        periods: ['event'],
        source,
        event: { anchor: '2026-11-21T18:00:00Z', every: { hours: 6 }, lasts: { hours: 4 }, maxEntrants: raceMaxEntrants },
      },
    ],
  };
}

/** Long enough for PostgreSQL and Redis on a busy CI machine; typically a few seconds. */
const propertyTimeoutMs = 180_000;

/** Ignores the refusals a random sequence makes on purpose (unhiding a visible player, rejecting what is not flagged...). */
async function tolerated(action: Promise<unknown>): Promise<void> {
  await action.catch((error: unknown) => {
    if (!(error instanceof ApiError && ['player-not-hidden', 'run-not-reviewable', 'entry-not-found'].includes(error.code))) throw error;
  });
}

describeEachDatabase('moderation: rank engine and SQL', (database) => {
  describeEachRedisVariant(
    database,
    (variantName) => Array.from({ length: runs }, (_, i) => moderatedGame(`modprop-${variantName}-${i}`)),
    (suite) => {
      const { clock, freshGame } = suite;
      it('agree after randomized runs, hides (shadow or not), unhides, rejected-run withdrawals and removals across period rollovers and event ends', async () => {
        await fc.assert(
          fc.asyncProperty(fc.array(operation, { minLength: operationsPerRun, maxLength: operationsPerRun }), async (operations) => {
            const game = freshGame();
            const app = suite.app;
            const players: Array<{ id: string; displayName: string }> = [];
            for (let i = 0; i < playerCount; i++) players.push((await devSignIn(app, game.id, `P${i}`)).player);
            let runNumber = 0;
            await applyInRacingBatches(operations, concurrency, async (op) => {
              if (op.kind === 'tick') {
                clock.advance(op.ms);
                return;
              }
              const player = players[op.player]!;
              switch (op.kind) {
                case 'run': {
                  const payload = { score: op.score, durationMs: op.durationMs, ...(op.flagged ? { hints: { score: op.score + 1 } } : {}) };
                  await app.runs.submissions.submit({ game, player, adapterId: 'score', runId: `run-${String(runNumber++).padStart(6, '0')}`, payload });
                  return;
                }
                case 'hide':
                  return tolerated(app.moderation.hide(game.id, player.id, { shadow: op.shadow, until: null }, operator));
                case 'unhide':
                  return tolerated(app.moderation.unhide(game.id, player.id, operator));
                case 'remove':
                  return tolerated(app.moderation.removeEntry(game.id, player.id, { boardId: op.board, period: 'all' }, operator));
                case 'reject': {
                  const [flagged] = (await app.runs.list({ gameId: game.id, playerId: player.id, status: 'flagged', limit: 1 })).runs;
                  if (flagged) await tolerated(app.moderation.reviewRun(game.id, flagged.id, 'rejected', operator));
                  return;
                }
              }
            });

            await expectEngineAgreesWithSql(app, game.id);
            // SQL itself: a hidden player's rows are all hidden, a visible player's none.
            const db = app.database.db;
            const hiddenPlayers = new Set((await db.selectFrom('leaderboard_hidden_players').select('player_id').where('game_id', '=', game.id).execute()).map((r) => r.player_id));
            const rows = await db.selectFrom('leaderboard_entries').select(['player_id', 'hidden']).where('game_id', '=', game.id).execute();
            expect(rows.filter((row) => (Number(row.hidden) === 1) !== hiddenPlayers.has(row.player_id))).toEqual([]);
            // Event windows: no entry was written after its window ended (nor before it began), and no race window has more entrants than its cap.
            const eventRows = await db.selectFrom('leaderboard_entries').select(['board_id', 'period', 'achieved_at']).where('game_id', '=', game.id).where('board_id', 'in', ['cup', 'race']).execute();
            const windowHours = { cup: 16, race: 4 } as const;
            for (const row of eventRows.filter((r) => r.period !== 'all')) {
              const startMs = Date.parse(row.period);
              expect([row.board_id, row.period, Number(row.achieved_at) >= startMs && Number(row.achieved_at) < startMs + windowHours[row.board_id as 'cup' | 'race'] * 3_600_000]).toEqual([row.board_id, row.period, true]);
            }
            const racers = new Map<string, number>();
            for (const row of eventRows.filter((r) => r.board_id === 'race')) racers.set(row.period, (racers.get(row.period) ?? 0) + 1);
            expect([...racers.values()].filter((n) => n > raceMaxEntrants)).toEqual([]);
            // Every visible player's 'all' entries are their remaining runs folded by each board's operator (unless an operator removed one).
            const removed = new Set((await app.moderation.audit({ gameId: game.id, limit: 1_000 })).entries.filter((e) => e.action === 'remove-entry').map((e) => e.playerId));
            for (const player of players.filter((p) => !hiddenPlayers.has(p.id) && !removed.has(p.id))) {
              const kept = (await app.runs.list({ gameId: game.id, playerId: player.id, limit: 1_000 })).runs.filter((run) => run.status !== 'rejected');
              const scores = kept.map((run) => run.result!.score!);
              const me = await app.leaderboards.standing(game, 'total', player.id, { period: 'all', radius: 0 });
              expect(me.entry?.score).toBe(scores.length === 0 ? undefined : scores.reduce((a, b) => a + b, 0));
              const best = await app.leaderboards.standing(game, 'high', player.id, { period: 'all', radius: 0 });
              expect(best.entry?.score).toBe(scores.length === 0 ? undefined : Math.max(...scores));
              // With a subscore, `best` keeps the best run by score then quickest: its subscore and metadata.
              const quick = await app.leaderboards.standing(game, 'quick', player.id, { period: 'all', radius: 0 });
              if (scores.length === 0) {
                expect(quick.entry).toBeUndefined();
              } else {
                const top = Math.max(...scores);
                const quickest = Math.min(...kept.filter((run) => run.result!.score === top).map((run) => run.result!.durationMs!));
                expect([quick.entry?.score, quick.entry?.subscore, quick.entry?.metadata]).toEqual([top, quickest, { durationMs: quickest, score: top }]);
              }
            }
          }),
          { numRuns: runs, endOnFailure: true },
        );
      }, propertyTimeoutMs);
    },
  );
});

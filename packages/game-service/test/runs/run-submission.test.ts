import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { ManualClock, type App } from '@playstack/server-kit';
import { describeEachDatabase, redisVariants } from '@playstack/server-kit/testing';
import type { GameDefinition } from '../../src/manifest/manifest-schema.js';
import { replay2048 } from '../../src/runs/adapters/game-2048.js';
import { countRunsByGame } from '../../src/runs/run-counts.js';
import { findRunById, listRuns } from '../../src/runs/run-store.js';
import { bearer, devSignIn, manifestWith, storeManifest, type Session } from '../support/identity-fixtures.js';
import { buildTestApp } from '../support/test-app.js';

const startedAt = '2026-11-21T10:00:00.000Z';

/** A game whose bounded-score options make implausible runs easy to write. */
const strictGame: GameDefinition = {
  id: 'strict',
  name: 'Strict',
  auth: { provider: 'dev' },
  adapters: { score: { type: 'bounded-score', options: { minScore: 0, maxScore: 1000, maxScorePerSecond: 10 } } },
  boards: [{ id: 'high-score', name: 'High score', order: 'desc', operator: 'best', periods: ['all'], source: { adapter: 'score', value: 'score' } }],
};

/** A game with one adapter switched off in the manifest and one still on. */
const switchedGame: GameDefinition = {
  id: 'switched',
  name: 'Switched',
  auth: { provider: 'dev' },
  adapters: {
    retired: { type: 'bounded-score', options: {}, enabled: false },
    live: { type: 'bounded-score', options: {}, enabled: true },
  },
  boards: [{ id: 'high-score', name: 'High score', order: 'desc', operator: 'best', periods: ['all'], source: { adapter: 'retired', value: 'score' } }],
};

const unlimited = { GAME_AUTH_RATE_LIMIT_MAX: '100000', GAME_PLAYER_RATE_LIMIT_MAX: '100000', GAME_RUN_RATE_LIMIT_MAX: '100000' };

let runCounter = 0;
/** A fresh valid runId. */
function newRunId(): string {
  runCounter += 1;
  return `run-${String(runCounter).padStart(6, '0')}-${Math.random().toString(36).slice(2, 10)}`;
}

describeEachDatabase('run submission', (database) => {
  let app: App;
  let clock: ManualClock;
  let alice: Session;

  beforeAll(async () => {
    clock = new ManualClock(startedAt);
    // Generous limits: this suite signs in and submits far more than a player would.
    app = await buildTestApp(database(), unlimited, { clock });
    await storeManifest(app, manifestWith(strictGame, switchedGame));
    alice = await devSignIn(app, 'demo', 'alice');
  });
  afterAll(async () => {
    await app.close();
  });

  function submit(gameId: string, adapterId: string, session: Session, body: unknown) {
    return app.inject({ method: 'POST', url: `/v1/games/${gameId}/runs/${adapterId}`, headers: bearer(session.accessToken), payload: body as object });
  }

  async function board(gameId: string, boardId: string, period = 'all') {
    // A fresh reader each time: tokens are bound to their game and expire when tests move time.
    const reader = await devSignIn(app, gameId, 'reader');
    const response = await app.inject({ method: 'GET', url: `/v1/games/${gameId}/leaderboards/${boardId}?period=${period}&limit=100`, headers: bearer(reader.accessToken) });
    expect(response.statusCode).toBe(200);
    return response.json() as { period: string; entries: Array<{ playerId: string; score: number; rank: number }> };
  }

  describe('bounded-score', () => {
    it('accepts plausible evidence and answers the derived result with every board and period it counted on', async () => {
      const player = await devSignIn(app, 'demo', 'bounded-good');
      const runId = newRunId();
      const response = await submit('demo', 'score', player, { runId, payload: { score: 4200, durationMs: 60_000 } });
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body).toMatchObject({ runId, adapterId: 'score', status: 'accepted', result: { score: 4200, durationMs: 60_000 } });
      expect(body.leaderboards.map((l: { boardId: string; period: string }) => `${l.boardId}/${l.period}`).sort()).toEqual([
        'fastest/all',
        'high-score/2026-11',
        'high-score/2026-11-21',
        'high-score/2026-W47',
        'high-score/all',
        'total-score/all',
      ]);
      for (const placement of body.leaderboards) {
        expect(placement.rank).toBeGreaterThanOrEqual(1);
        expect(placement.improved).toBe(true);
      }
      expect(body.leaderboards.find((l: { boardId: string }) => l.boardId === 'fastest').score).toBe(60_000);
    });

    it('refuses implausible evidence with 422 evidence-rejected and records the rejected run', async () => {
      const player = await devSignIn(app, 'strict', 'bounded-cheat');
      const runId = newRunId();
      const tooFast = await submit('strict', 'score', player, { runId, payload: { score: 500, durationMs: 1000 } });
      expect(tooFast.statusCode).toBe(422);
      expect(tooFast.json().error).toMatchObject({ code: 'evidence-rejected', requestId: tooFast.headers['x-request-id'] });
      expect(tooFast.json().error.message).toContain('exceeds the maximum of 10 points per second');

      const tooHigh = await submit('strict', 'score', player, { runId: newRunId(), payload: { score: 1001, durationMs: 1_000_000 } });
      expect(tooHigh.statusCode).toBe(422);
      expect(tooHigh.json().error.message).toContain('above the maximum 1000');

      const page = await listRuns(app.database.db, { gameId: 'strict', playerId: player.player.id, limit: 10 });
      expect(page.runs.map((run) => run.status)).toEqual(['rejected', 'rejected']);
      expect(page.runs[1]).toMatchObject({ runId, adapterId: 'score', adapterType: 'bounded-score', result: null, payload: { score: 500, durationMs: 1000 } });
      expect(page.runs[1]!.rejectionReason).toContain('points per second');
      expect((await board('strict', 'high-score')).entries.find((e) => e.playerId === player.player.id)).toBeUndefined();
    });

    it('a rejected run resubmitted with the same content is the same 422; with other content 409', async () => {
      const player = await devSignIn(app, 'strict', 'bounded-retry');
      const runId = newRunId();
      const first = await submit('strict', 'score', player, { runId, payload: { score: 900, durationMs: 1 } });
      const again = await submit('strict', 'score', player, { runId, payload: { durationMs: 1, score: 900 } });
      expect(again.statusCode).toBe(422);
      expect(again.json().error.message).toBe(first.json().error.message);
      const other = await submit('strict', 'score', player, { runId, payload: { score: 5, durationMs: 60_000 } });
      expect(other.statusCode).toBe(409);
      expect(other.json().error.code).toBe('run-id-conflict');
    });

    it('a payload not in the adapter type schema is 400 naming the field, and records nothing', async () => {
      const player = await devSignIn(app, 'demo', 'bounded-shape');
      for (const payload of [{ score: 1.5, durationMs: 10 }, { score: 10 }, { score: 10, durationMs: 10, extra: true }, { score: '10', durationMs: 10 }]) {
        const response = await submit('demo', 'score', player, { runId: newRunId(), payload });
        expect(response.statusCode).toBe(400);
        expect(response.json().error.code).toBe('invalid-request');
        expect(response.json().error.message).toMatch(/^body\.payload\.(score|durationMs|extra) /);
      }
      expect((await listRuns(app.database.db, { gameId: 'demo', playerId: player.player.id, limit: 10 })).runs).toEqual([]);
    });
  });

  describe('replay-2048', () => {
    const moves = 'LDRULDRULLDDRRUULDLDRURDLLURDDLURRDLU'.repeat(8);
    const truth = replay2048(20261121, moves);

    it('derives score, best tile and moves by replaying the evidence', async () => {
      const player = await devSignIn(app, 'tiles', 'replay-honest');
      const response = await submit('tiles', 'score', player, { runId: newRunId(), payload: { seed: 20261121, moves, hints: { score: truth.score } } });
      expect(response.statusCode).toBe(200);
      expect(response.json().result).toEqual({ score: truth.score, maxTile: truth.maxTile, moves: truth.moves });
      const [run] = (await listRuns(app.database.db, { gameId: 'tiles', playerId: player.player.id, limit: 1 })).runs;
      expect(run).toMatchObject({ status: 'accepted', hintMismatches: [] });
    });

    it('derives the true score when the claimed score lies, flags the run and ranks the truth', async () => {
      const player = await devSignIn(app, 'tiles', 'replay-liar');
      const runId = newRunId();
      const response = await submit('tiles', 'score', player, { runId, payload: { seed: 20261121, moves, hints: { score: 9_999_999 } } });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ status: 'accepted', result: { score: truth.score } });
      const [run] = (await listRuns(app.database.db, { gameId: 'tiles', status: 'flagged', playerId: player.player.id, limit: 5 })).runs;
      expect(run).toMatchObject({ runId, status: 'flagged', hintMismatches: [{ name: 'score', claimed: 9_999_999, derived: truth.score }] });
      const entry = (await board('tiles', 'high-score')).entries.find((e) => e.playerId === player.player.id);
      expect(entry?.score).toBe(truth.score);
    });

    it('refuses more moves than the game allows with 422, and a malformed move string with 400', async () => {
      const player = await devSignIn(app, 'tiles', 'replay-bad');
      const tooLong = await submit('tiles', 'score', player, { runId: newRunId(), payload: { seed: 1, moves: 'LR'.repeat(10_001) } });
      expect(tooLong.statusCode).toBe(422);
      expect(tooLong.json().error.message).toContain('at most 20000');
      const malformed = await submit('tiles', 'score', player, { runId: newRunId(), payload: { seed: 1, moves: 'LRX' } });
      expect(malformed.statusCode).toBe(400);
      expect(malformed.json().error.message).toMatch(/^body\.payload\.moves /);
      const negativeSeed = await submit('tiles', 'score', player, { runId: newRunId(), payload: { seed: -1, moves: 'L' } });
      expect(negativeSeed.statusCode).toBe(400);
    });
  });

  describe('idempotency', () => {
    it('the same runId and content, members reordered, returns the original response even after ranks moved', async () => {
      const player = await devSignIn(app, 'demo', 'idem-reorder');
      const runId = newRunId();
      const first = await submit('demo', 'score', player, { runId, payload: { score: 700_000, durationMs: 5_000, hints: { a: 1, b: [1, { y: 2, x: 1 }] } } });
      expect(first.statusCode).toBe(200);
      // Someone else takes first place: a fresh derivation would report other ranks.
      const rival = await devSignIn(app, 'demo', 'idem-rival');
      expect((await submit('demo', 'score', rival, { runId: newRunId(), payload: { score: 900_000_000, durationMs: 1_000_000 } })).statusCode).toBe(200);
      const again = await submit('demo', 'score', player, { payload: { hints: { b: [1, { x: 1, y: 2 }], a: 1 }, durationMs: 5_000, score: 700_000 }, runId });
      expect(again.statusCode).toBe(200);
      expect(again.body).toBe(first.body);
      expect((await listRuns(app.database.db, { gameId: 'demo', playerId: player.player.id, limit: 10 })).runs).toHaveLength(1);
    });

    it('the same runId with different content is 409 run-id-conflict and changes nothing', async () => {
      const player = await devSignIn(app, 'demo', 'idem-conflict');
      const runId = newRunId();
      expect((await submit('demo', 'score', player, { runId, payload: { score: 10, durationMs: 5_000 } })).statusCode).toBe(200);
      for (const payload of [{ score: 11, durationMs: 5_000 }, { score: 10, durationMs: 5_000, hints: { score: 10 } }, { score: 'x' }]) {
        const response = await submit('demo', 'score', player, { runId, payload });
        expect(response.statusCode).toBe(409);
        expect(response.json().error.code).toBe('run-id-conflict');
      }
      const entry = (await board('demo', 'total-score')).entries.find((e) => e.playerId === player.player.id);
      expect(entry?.score).toBe(10);
    });

    it('the same runId under another player or game is another run', async () => {
      const runId = newRunId();
      const one = await devSignIn(app, 'demo', 'idem-one');
      const two = await devSignIn(app, 'demo', 'idem-two');
      expect((await submit('demo', 'score', one, { runId, payload: { score: 1, durationMs: 5_000 } })).statusCode).toBe(200);
      expect((await submit('demo', 'score', two, { runId, payload: { score: 2, durationMs: 5_000 } })).statusCode).toBe(200);
    });

    it('20 concurrent identical submissions create one run and one score update, all with one answer', async () => {
      const player = await devSignIn(app, 'demo', 'idem-concurrent');
      const runId = newRunId();
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          submit('demo', 'score', player, { runId, payload: i % 2 === 0 ? { score: 321, durationMs: 9_000 } : { durationMs: 9_000, score: 321 } }),
        ),
      );
      expect(responses.map((r) => r.statusCode)).toEqual(Array(20).fill(200));
      expect(new Set(responses.map((r) => r.body)).size).toBe(1);
      expect((await listRuns(app.database.db, { gameId: 'demo', playerId: player.player.id, limit: 50 })).runs).toHaveLength(1);
      // total-score sums every run: a second score update would show as 642.
      const entry = (await board('demo', 'total-score')).entries.find((e) => e.playerId === player.player.id);
      expect(entry?.score).toBe(321);
    });
  });

  describe('request validation', () => {
    it('40 concurrent runs of 8 players: each stores the response it was answered with (stored many to a write)', async () => {
      const players = await Promise.all(Array.from({ length: 8 }, (_, i) => devSignIn(app, 'demo', `batched-${i}`)));
      const runs = Array.from({ length: 40 }, (_, i) => ({ player: players[i % 8]!, runId: newRunId(), payload: { score: 1_000 + i, durationMs: 60_000 } }));
      const answers = await Promise.all(runs.map((run) => submit('demo', 'score', run.player, { runId: run.runId, payload: run.payload })));
      expect(answers.map((answer) => answer.statusCode)).toEqual(runs.map(() => 200));
      // Resubmissions are answered from the stored responses.
      const again = await Promise.all(runs.map((run) => submit('demo', 'score', run.player, { runId: run.runId, payload: run.payload })));
      expect(again.map((answer) => answer.json())).toEqual(answers.map((answer) => answer.json()));
      const stored = await sql<{ run_id: string; response_body: string }>`select run_id, response_body from runs where run_id in (${sql.join(runs.map((run) => run.runId))})`.execute(app.database.db);
      expect(Object.fromEntries(stored.rows.map((row) => [row.run_id, JSON.parse(row.response_body)]))).toEqual(Object.fromEntries(runs.map((run, i) => [run.runId, answers[i]!.json()])));
    });

    it('runId: 8 and 128 characters are accepted; 7, 129 and a forbidden character are 400', async () => {
      const player = await devSignIn(app, 'demo', 'run-id-edges');
      const payload = { score: 1, durationMs: 5_000 };
      for (const runId of ['a'.repeat(8), 'b'.repeat(128), 'Az09._~-']) {
        expect((await submit('demo', 'score', player, { runId, payload })).statusCode).toBe(200);
      }
      for (const runId of ['a'.repeat(7), 'c'.repeat(129), 'abcdefg/h', 'abcd efgh', 'abcdefgé', 'abcdefg+', '']) {
        const response = await submit('demo', 'score', player, { runId, payload });
        expect(response.statusCode).toBe(400);
        expect(response.json().error).toMatchObject({ code: 'invalid-request' });
        expect(response.json().error.message).toContain('runId');
      }
    });

    it('an unknown adapter is 404 adapter-not-found; so is one bound only in another game', async () => {
      const unknown = await submit('demo', 'nope', alice, { runId: newRunId(), payload: { score: 1, durationMs: 1 } });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json().error.code).toBe('adapter-not-found');
      // replay-2048 is a type the server knows and the tiles game enables, but demo does not.
      const notEnabled = await submit('demo', 'replay-2048', alice, { runId: newRunId(), payload: { seed: 1, moves: 'L' } });
      expect(notEnabled.statusCode).toBe(404);
      expect(notEnabled.json().error.code).toBe('adapter-not-found');
      const replay = await submit('strict', 'replay', await devSignIn(app, 'strict', 'not-enabled'), { runId: newRunId(), payload: { seed: 1, moves: 'L' } });
      expect(replay.statusCode).toBe(404);
      expect(replay.json().error.code).toBe('adapter-not-found');
    });

    it('an adapter switched off with enabled: false is 404 adapter-not-found and records nothing; enabled: true is judged', async () => {
      const player = await devSignIn(app, 'switched', 'switched-off');
      const runId = newRunId();
      const off = await submit('switched', 'retired', player, { runId, payload: { score: 10, durationMs: 5_000 } });
      expect(off.statusCode).toBe(404);
      expect(off.json().error.code).toBe('adapter-not-found');
      expect((await listRuns(app.database.db, { gameId: 'switched', playerId: player.player.id, limit: 10 })).runs).toEqual([]);
      const on = await submit('switched', 'live', player, { runId: newRunId(), payload: { score: 10, durationMs: 5_000 } });
      expect(on.statusCode).toBe(200);
      expect((await listRuns(app.database.db, { gameId: 'switched', playerId: player.player.id, limit: 10 })).runs.map((r) => r.adapterId)).toEqual(['live']);
    });

    it('an unknown game is 404 game-not-found', async () => {
      const response = await submit('nowhere', 'score', alice, { runId: newRunId(), payload: {} });
      expect(response.statusCode).toBe(404);
      expect(response.json().error.code).toBe('game-not-found');
    });

    it('a body above 256 KiB is 413 payload-too-large; just below is judged', async () => {
      const player = await devSignIn(app, 'demo', 'body-limit');
      const over = JSON.stringify({ runId: newRunId(), payload: { score: 1, durationMs: 5_000, hints: { pad: 'x'.repeat(256 * 1024) } } });
      const response = await app.inject({ method: 'POST', url: '/v1/games/demo/runs/score', headers: { ...bearer(player.accessToken), 'content-type': 'application/json' }, payload: over });
      expect(response.statusCode).toBe(413);
      expect(response.json().error.code).toBe('payload-too-large');
      const under = await submit('demo', 'score', player, { runId: newRunId(), payload: { score: 1, durationMs: 5_000, hints: { pad: 'x'.repeat(255 * 1024) } } });
      expect(under.statusCode).toBe(200);
    });

    it('a body that is not {runId, payload} is 400, naming the member', async () => {
      const cases: Array<[unknown, string]> = [
        [{ payload: {} }, 'runId'],
        [{ runId: newRunId() }, 'payload'],
        [{ runId: newRunId(), payload: [] }, 'payload'],
        [{ runId: newRunId(), payload: {}, extra: 1 }, 'extra'],
      ];
      for (const [body, member] of cases) {
        const response = await submit('demo', 'score', alice, body);
        expect(response.statusCode).toBe(400);
        expect(response.json().error.message).toContain(member);
      }
    });

    it('a payload nested deeper than 32 levels is 400, however deep', async () => {
      const player = await devSignIn(app, 'demo', 'deep-payload');
      for (const depth of [40, 100_000]) {
        const body = `{"runId":"${newRunId()}","payload":{"score":1,"durationMs":5000,"hints":{"x":${'['.repeat(depth)}${']'.repeat(depth)}}}}`;
        const response = await app.inject({ method: 'POST', url: '/v1/games/demo/runs/score', headers: { ...bearer(player.accessToken), 'content-type': 'application/json' }, payload: body });
        expect(response.statusCode).toBe(400);
        // The route's own bound (32), or past 64 levels the check every request body gets.
        expect(response.json().error.message).toBe(`body.payload is nested more than ${depth > 64 ? 64 : 32} levels deep`);
      }
      const shallow = await submit('demo', 'score', player, { runId: newRunId(), payload: { score: 1, durationMs: 5_000, hints: { x: [[[1]]] } } });
      expect(shallow.statusCode).toBe(200);
    });

    it('without a valid access token it is 401', async () => {
      const none = await app.inject({ method: 'POST', url: '/v1/games/demo/runs/score', payload: { runId: newRunId(), payload: { score: 1, durationMs: 1 } } });
      expect(none.statusCode).toBe(401);
      const otherGame = await submit('tiles', 'score', alice, { runId: newRunId(), payload: { seed: 1, moves: 'L' } });
      expect(otherGame.statusCode).toBe(401);
    });
  });

  describe('leaderboards', () => {
    it('an accepted run appears on every board it feeds, in every period the board keeps', async () => {
      const player = await devSignIn(app, 'demo', 'every-period');
      expect((await submit('demo', 'score', player, { runId: newRunId(), payload: { score: 123_456, durationMs: 7_777 } })).statusCode).toBe(200);
      for (const period of ['all', 'daily', 'weekly', 'monthly', '2026-11-21', '2026-W47', '2026-11']) {
        const page = await board('demo', 'high-score', period);
        expect(page.entries.find((e) => e.playerId === player.player.id)?.score).toBe(123_456);
      }
      expect((await board('demo', 'total-score')).entries.find((e) => e.playerId === player.player.id)?.score).toBe(123_456);
      expect((await board('demo', 'fastest')).entries.find((e) => e.playerId === player.player.id)?.score).toBe(7_777);
    });

    it('a run in a later period lands in that period; earlier periods keep their entries', async () => {
      const player = await devSignIn(app, 'demo', 'later-period');
      expect((await submit('demo', 'score', player, { runId: newRunId(), payload: { score: 50, durationMs: 5_000 } })).statusCode).toBe(200);
      clock.set('2026-12-02T08:00:00.000Z');
      try {
        const later = await devSignIn(app, 'demo', 'later-period');
        const next = await submit('demo', 'score', later, { runId: newRunId(), payload: { score: 40, durationMs: 5_000 } });
        expect(next.statusCode).toBe(200);
        const periods = next.json().leaderboards.filter((l: { boardId: string }) => l.boardId === 'high-score').map((l: { period: string }) => l.period).sort();
        expect(periods).toEqual(['2026-12', '2026-12-02', '2026-W49', 'all']);
        expect((await board('demo', 'high-score', '2026-12-02')).entries.find((e) => e.playerId === player.player.id)?.score).toBe(40);
        expect((await board('demo', 'high-score', '2026-11-21')).entries.find((e) => e.playerId === player.player.id)?.score).toBe(50);
        expect((await board('demo', 'high-score', 'all')).entries.find((e) => e.playerId === player.player.id)?.score).toBe(50);
      } finally {
        clock.set(startedAt);
      }
    });
  });

  describe('atomicity', () => {
    it('when the leaderboard write fails, no run is recorded; the same runId later succeeds once', async () => {
      const player = await devSignIn(app, 'demo', 'atomic');
      const runId = newRunId();
      const body = { runId, payload: { score: 77, durationMs: 5_000 } };
      // A real failure inside the run's transaction: the leaderboards' table is briefly missing.
      await sql`alter table leaderboard_entries rename to leaderboard_entries_away`.execute(app.database.db);
      try {
        const failed = await submit('demo', 'score', player, body);
        expect(failed.statusCode).toBe(500);
        expect(failed.json().error.code).toBe('internal-error');
      } finally {
        await sql`alter table leaderboard_entries_away rename to leaderboard_entries`.execute(app.database.db);
      }
      expect((await listRuns(app.database.db, { gameId: 'demo', playerId: player.player.id, limit: 10 })).runs).toEqual([]);
      const retried = await submit('demo', 'score', player, body);
      expect(retried.statusCode).toBe(200);
      expect((await listRuns(app.database.db, { gameId: 'demo', playerId: player.player.id, limit: 10 })).runs).toHaveLength(1);
      expect((await board('demo', 'total-score')).entries.find((e) => e.playerId === player.player.id)?.score).toBe(77);
    });
  });

  describe('operators and erasure', () => {
    it('lists a game’s runs newest first with filters and keyset paging', async () => {
      const player = await devSignIn(app, 'strict', 'listing');
      const ids: string[] = [];
      for (let i = 0; i < 5; i += 1) {
        const runId = newRunId();
        ids.push(runId);
        await submit('strict', 'score', player, { runId, payload: { score: i === 2 ? 999 : i, durationMs: 60_000 } });
      }
      const first = await listRuns(app.database.db, { gameId: 'strict', playerId: player.player.id, limit: 2 });
      expect(first.runs.map((r) => r.runId)).toEqual([ids[4], ids[3]]);
      const second = await listRuns(app.database.db, { gameId: 'strict', playerId: player.player.id, limit: 2, beforeId: first.nextBeforeId! });
      expect(second.runs.map((r) => r.runId)).toEqual([ids[2], ids[1]]);
      const last = await listRuns(app.database.db, { gameId: 'strict', playerId: player.player.id, limit: 2, beforeId: second.nextBeforeId! });
      expect(last.runs.map((r) => r.runId)).toEqual([ids[0]]);
      expect(last.nextBeforeId).toBeNull();
      const rejected = await listRuns(app.database.db, { gameId: 'strict', playerId: player.player.id, status: 'rejected', limit: 10 });
      expect(rejected.runs.map((r) => r.runId)).toEqual([ids[2]]);
      expect(await findRunById(app.database.db, 'strict', rejected.runs[0]!.id)).toMatchObject({ runId: ids[2], status: 'rejected' });
      expect(await findRunById(app.database.db, 'demo', rejected.runs[0]!.id)).toBeUndefined();
      expect((await countRunsByGame(app.database.db, 0)).get('strict')?.byStatus.rejected).toBeGreaterThanOrEqual(1);
    });

    it('deleting the player erases their runs, counts them, and leaves other players runs', async () => {
      const player = await devSignIn(app, 'demo', 'erased');
      const runIds = [newRunId(), newRunId(), newRunId()];
      for (const runId of runIds) await submit('demo', 'score', player, { runId, payload: { score: 5, durationMs: 5_000 } });
      const bystander = await devSignIn(app, 'demo', 'bystander');
      await submit('demo', 'score', bystander, { runId: newRunId(), payload: { score: 5, durationMs: 5_000 } });

      const deleted = await app.inject({ method: 'DELETE', url: '/v1/games/demo/player', headers: bearer(player.accessToken) });
      expect(deleted.statusCode).toBe(200);
      expect(deleted.json().deleted.runs).toBe(3);
      expect((await listRuns(app.database.db, { gameId: 'demo', playerId: player.player.id, limit: 10 })).runs).toEqual([]);
      expect((await listRuns(app.database.db, { gameId: 'demo', playerId: bystander.player.id, limit: 10 })).runs).toHaveLength(1);
    });
  });
});

for (const variant of redisVariants()) {
  describeEachDatabase(`run submission rate limit and ranks, ${variant.name} state`, (database) => {
    let app: App;
    beforeAll(async () => {
      app = await buildTestApp(database(), { ...unlimited, ...variant.env(), GAME_RUN_RATE_LIMIT_MAX: '3', GAME_RUN_RATE_LIMIT_WINDOW_MS: '60000' });
    });
    afterAll(async () => {
      await app.close();
    });

    const post = (session: Session, score = 1) =>
      app.inject({ method: 'POST', url: '/v1/games/demo/runs/score', headers: bearer(session.accessToken), payload: { runId: newRunId(), payload: { score, durationMs: 5_000 } } });

    it('limits submissions per player: over the limit is 429 rate-limited with Retry-After', async () => {
      const [one, two] = [await devSignIn(app, 'demo', 'limited-one'), await devSignIn(app, 'demo', 'limited-two')];
      for (let i = 0; i < 3; i += 1) expect((await post(one)).statusCode).toBe(200);
      const limited = await post(one);
      expect(limited.statusCode).toBe(429);
      expect(limited.json().error.code).toBe('rate-limited');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      // Another player has their own allowance.
      expect((await post(two)).statusCode).toBe(200);
    });

    it('reports the ranks the run reached on each board', async () => {
      const [low, high] = [await devSignIn(app, 'demo', 'rank-low'), await devSignIn(app, 'demo', 'rank-high')];
      await post(low, 10_000);
      const response = await post(high, 20_000);
      const allTime = response.json().leaderboards.find((l: { boardId: string; period: string }) => l.boardId === 'high-score' && l.period === 'all');
      expect(allTime).toEqual({ boardId: 'high-score', period: 'all', score: 20_000, rank: 1, improved: true });
    });
  });
}

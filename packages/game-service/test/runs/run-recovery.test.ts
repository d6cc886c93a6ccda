import { afterAll, beforeAll, expect, it } from 'vitest';
import type { App } from '@playstack/server-kit';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import type { GameDefinition } from '../../src/manifest/manifest-schema.js';
import { adapterTypes } from '../../src/runs/adapters/registry.js';
import { contentHash, canonicalJson } from '../../src/canonical-json.js';
import { RunSubmissions } from '../../src/runs/run-submission.js';
import { listRuns, RunStatements } from '../../src/runs/run-store.js';
import { GroupCommitWriter } from '../../src/group-commit.js';
import { bearer, devSignIn } from '../support/identity-fixtures.js';
import { buildTestApp } from '../support/test-app.js';

const unlimited = { GAME_AUTH_RATE_LIMIT_MAX: '100000', GAME_PLAYER_RATE_LIMIT_MAX: '100000', GAME_RUN_RATE_LIMIT_MAX: '100000' };

describeEachDatabase('run submission across instances and after a crash', (database) => {
  let first: App;
  let second: App;
  beforeAll(async () => {
    first = await buildTestApp(database(), unlimited);
    // A second instance on the same database: its in-process bookkeeping knows nothing of the first's.
    second = await buildTestApp(database(), unlimited);
  });
  afterAll(async () => {
    await second.close();
    await first.close();
  });

  it('duplicates racing on two instances create one run, and every answer is the same', async () => {
    const player = await devSignIn(first, 'demo', 'two-instances');
    const body = { runId: 'shared-run-0001', payload: { score: 222, durationMs: 30_000 } };
    const responses = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        (i % 2 === 0 ? first : second).inject({ method: 'POST', url: '/v1/games/demo/runs/score', headers: bearer(player.accessToken), payload: body }),
      ),
    );
    expect(responses.map((r) => r.statusCode)).toEqual(Array(16).fill(200));
    expect(new Set(responses.map((r) => r.body)).size).toBe(1);
    expect((await listRuns(first.database.db, { gameId: 'demo', playerId: player.player.id, limit: 10 })).runs).toHaveLength(1);
    const board = await first.inject({ method: 'GET', url: '/v1/games/demo/leaderboards/total-score/me', headers: bearer(player.accessToken) });
    expect(board.json().entry.score).toBe(222);
  });

  it('an accepted run whose response was never stored is answered with its stored result, the same way every time', async () => {
    const game: GameDefinition = first.games.require('demo');
    const player = await devSignIn(first, 'demo', 'crashed');
    const payload = { score: 90, durationMs: 40_000 };
    // What a crash between the run's commit and the storing of its response leaves behind.
    const statements = new RunStatements(first.database.db);
    await statements.insertIfAbsent(first.database.db, {
      gameId: 'demo',
      playerId: player.player.id,
      runId: 'crashed-run-1',
      adapterId: 'score',
      adapterType: 'bounded-score',
      adapterVersion: 1,
      contentHash: contentHash({ adapterId: 'score', payload }),
      status: 'accepted',
      payload: canonicalJson(payload),
      result: { score: 90, durationMs: 40_000 },
      hintMismatches: [],
      rejectionReason: null,
      responseStatus: 200,
      createdAt: Date.parse('2026-11-21T10:00:00.000Z'),
    });
    const submissions = new RunSubmissions({
      db: first.database.db,
      dialect: first.database.dialect,
      writer: new GroupCommitWriter(first.database.db, { dialect: first.database.dialect, maxBatch: 8 }),
      clock: first.clock,
      scores: first.leaderboards,
      adapterTypes,
      responseWaitMs: 50,
    });
    const submission = { game, player: player.player, adapterId: 'score', runId: 'crashed-run-1', payload };
    const answer = await submissions.submit(submission);
    expect(answer).toEqual({ runId: 'crashed-run-1', adapterId: 'score', status: 'accepted', result: { score: 90, durationMs: 40_000 }, leaderboards: [], notScored: [] });
    expect(await submissions.submit({ ...submission, payload: { durationMs: 40_000, score: 90 } })).toEqual(answer);
    const stored = await statements.findOutcome(first.database.db, { gameId: 'demo', playerId: player.player.id, runId: 'crashed-run-1' });
    expect(JSON.parse(stored!.responseBody!)).toEqual(answer);
  });
});

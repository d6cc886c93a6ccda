import { expect, it } from 'vitest';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { listRuns, RunStatements } from '../../src/runs/run-store.js';
import { bearer, devSignIn } from '../support/identity-fixtures.js';
import { buildTestApp } from '../support/test-app.js';

describeEachDatabase('run submission at shutdown', (database) => {
  it('every answered run has its response stored once the app has closed', async () => {
    const app = await buildTestApp(database());
    const player = await devSignIn(app, 'demo', 'shutdown');
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        app.inject({ method: 'POST', url: '/v1/games/demo/runs/score', headers: bearer(player.accessToken), payload: { runId: `shutdown-${i}-run`, payload: { score: i, durationMs: 5_000 } } }),
      ),
    );
    expect(responses.map((r) => r.statusCode)).toEqual(Array(20).fill(200));
    await app.close();

    const reopened = await buildTestApp(database());
    try {
      const statements = new RunStatements(reopened.database.db);
      const { runs } = await listRuns(reopened.database.db, { gameId: 'demo', playerId: player.player.id, limit: 50 });
      expect(runs).toHaveLength(20);
      for (const [i, response] of responses.entries()) {
        const stored = await statements.findOutcome(reopened.database.db, { gameId: 'demo', playerId: player.player.id, runId: `shutdown-${i}-run` });
        expect(stored?.responseBody).toBe(response.body);
      }
    } finally {
      await reopened.close();
    }
  });
});

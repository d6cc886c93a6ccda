import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { describeEachDatabase, sendUntilKilled, startServiceProcess } from '@playstack/server-kit/testing';
import { listRuns } from '../../src/runs/run-store.js';
import { buildTestApp } from '../support/test-app.js';

const main = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
const unlimited = { GAME_AUTH_RATE_LIMIT_MAX: '100000', GAME_PLAYER_RATE_LIMIT_MAX: '100000', GAME_RUN_RATE_LIMIT_MAX: '100000' };
const players = 8;
/** Concurrent submitters: enough that group commits carry several runs each. */
const concurrentSenders = 24;
/** The process is killed once this many runs have been acknowledged. */
const killAfterAcknowledged = 60;

async function signIn(baseUrl: string, name: string): Promise<{ accessToken: string; player: { id: string } }> {
  const response = await fetch(`${baseUrl}/v1/games/demo/auth/exchange`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ authorizationCode: `dev:${name}` }),
  });
  if (response.status !== 200) throw new Error(`sign-in failed: ${response.status}`);
  return (await response.json()) as { accessToken: string; player: { id: string } };
}

// Starts the service as a child process under tsx: 10-30 s on a loaded machine.
describeEachDatabase('group commit when the process is killed', (database) => {
  it('every acknowledged run is stored after SIGKILL in the middle of group commits, and answered again with its result', { timeout: 120_000 }, async () => {
    const env = { ...database().env };
    const service = await startServiceProcess(main, { ...env, ...unlimited, GAME_PORT: '0', GAME_DEV_AUTH: '1', LOG_LEVEL: 'info' });
    const sessions = await Promise.all(Array.from({ length: players }, (_, i) => signIn(service.baseUrl, `crash-${i}`)));
    const acknowledged = await sendUntilKilled(service, {
      senders: concurrentSenders,
      killAfter: killAfterAcknowledged,
      send: async (senderIndex, acknowledgedSoFar) => {
        const session = sessions[senderIndex % players]!;
        const runId = randomUUID();
        const payload = { score: acknowledgedSoFar + 1, durationMs: 10_000 };
        const response = await fetch(`${service.baseUrl}/v1/games/demo/runs/score`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${session.accessToken}` },
          body: JSON.stringify({ runId, payload }),
        });
        const body = await response.text();
        if (response.status !== 200) throw new Error(`unexpected ${response.status}: ${body}`);
        return { playerId: session.player.id, runId, payload, body };
      },
    });
    expect(acknowledged.length).toBeGreaterThanOrEqual(killAfterAcknowledged);

    const reopened = await buildTestApp(database(), unlimited);
    try {
      const stored = new Set<string>();
      for (const { player } of sessions) {
        const { runs } = await listRuns(reopened.database.db, { gameId: 'demo', playerId: player.id, limit: 1000 });
        for (const run of runs) stored.add(`${player.id}/${run.runId}`);
      }
      // Acknowledged means committed: none is missing.
      expect(acknowledged.filter((a) => !stored.has(`${a.playerId}/${a.runId}`))).toEqual([]);
      // An acknowledged run sent again gets the answer first given (its stored response, or
      // its stored result where the kill came before the response was stored).
      const { playerId, runId, payload, body } = acknowledged.at(-1)!;
      const session = sessions.find((s) => s.player.id === playerId)!;
      const again = await reopened.inject({ method: 'POST', url: '/v1/games/demo/runs/score', headers: { authorization: `Bearer ${session.accessToken}` }, payload: { runId, payload } });
      expect(again.statusCode).toBe(200);
      expect(again.json().result).toEqual(JSON.parse(body).result);
    } finally {
      await reopened.close();
    }
  });
});

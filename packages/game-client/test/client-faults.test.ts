import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { createMemoryStorage, type GameClientEvents } from '../src/index.js';
import { newPlayerCode, openClient, scorePayload } from './support/clients.js';
import { startGameService, type GameServiceHarness } from './support/game-service-harness.js';

describeEachDatabase('game client through a faulty network', (database) => {
  let harness: GameServiceHarness;
  beforeAll(async () => {
    harness = await startGameService(database());
  });
  afterAll(async () => {
    await harness.close();
  });

  it('drains the queue in the background through dropped connections, delays, 500s and 429 with Retry-After', async () => {
    const storage = createMemoryStorage();
    const client = openClient(harness, { storage, requestTimeoutMs: 1_500 });
    await client.signIn(newPlayerCode('faults'));
    const scores = [101, 202, 303, 404, 505, 606];
    const accepted = new Set<string>();
    const retries: GameClientEvents['run-retry-scheduled'][] = [];
    client.on('run-retry-scheduled', (event) => retries.push(event));
    const allAccepted = new Promise<void>((resolve) => {
      client.on('run-accepted', ({ runId }) => {
        accepted.add(runId);
        if (accepted.size === scores.length) resolve();
      });
    });
    const rateLimitedAt: number[] = [];
    harness.proxy.plan('/runs/score', [
      { kind: 'drop' },
      { kind: 'delay', ms: 3_000 },
      { kind: 'status', status: 500 },
      { kind: 'lose-response' },
      { kind: 'status', status: 503 },
      { kind: 'rate-limit', retryAfterSeconds: 1 },
    ]);
    client.on('run-retry-scheduled', ({ reason }) => {
      if (reason.startsWith('429')) rateLimitedAt.push(Date.now());
    });

    const runIds: string[] = [];
    for (const score of scores) runIds.push((await client.submitRun('score', scorePayload(score))).runId);
    client.start();
    await allAccepted;
    const sentAfterRateLimit = harness.proxy.log.filter((entry) => entry.path.includes('/runs/')).at(-1);
    await client.stop();

    expect([...accepted].sort()).toEqual([...runIds].sort());
    expect(retries.map((retry) => retry.reason.split(' ')[0])).toEqual(
      expect.arrayContaining(['POST', '500', '503', '429']),
    );
    expect(retries.find((retry) => retry.reason.startsWith('429'))?.delayMs).toBeGreaterThanOrEqual(1000);
    expect(rateLimitedAt).toHaveLength(1);
    expect(sentAfterRateLimit?.action).toBe('forward');
    // Each run counted once on the sum board despite the retries and the lost response.
    expect(await client.myRank('total-score')).toMatchObject({ entry: { score: scores.reduce((sum, score) => sum + score, 0) } });
    expect(await storage.get('run-queue')).toBeUndefined();
  });

  it('does not send again before Retry-After has passed', async () => {
    let now = Date.now();
    const client = openClient(harness, { now: () => now });
    await client.signIn(newPlayerCode('retry-after'));
    harness.proxy.plan('/runs/score', [{ kind: 'rate-limit', retryAfterSeconds: 120 }]);
    await client.submitRun('score', scorePayload(1));
    expect(await client.flush()).toMatchObject({ stoppedBy: 'backoff', nextAttemptInMs: 120_000 });
    now += 119_000;
    expect(await client.flush()).toMatchObject({ accepted: 0, stoppedBy: 'backoff', nextAttemptInMs: 1_000 });
    now += 1_000;
    expect(await client.flush()).toMatchObject({ accepted: 1, remaining: 0 });
  });

  it('backs off exponentially with a cap while the service stays unreachable', async () => {
    let now = Date.now();
    const client = openClient(harness, { now: () => now, random: () => 1, backoff: { baseDelayMs: 1_000, maxDelayMs: 8_000 } });
    await client.signIn(newPlayerCode('backoff'));
    await client.submitRun('score', scorePayload(1));
    harness.proxy.down = true;
    const delays: number[] = [];
    client.on('run-retry-scheduled', ({ delayMs }) => delays.push(delayMs));
    for (let attempt = 0; attempt < 6; attempt += 1) {
      const report = await client.flush();
      now += report.nextAttemptInMs ?? 0;
    }
    harness.proxy.down = false;
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 8_000, 8_000]);
    expect(await client.flush()).toMatchObject({ accepted: 1, remaining: 0 });
  });
});

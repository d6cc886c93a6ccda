import { expect, it } from 'vitest';
import { createGameClient, createMemoryStorage, RunNotQueuedError, type ClientStorage } from '../src/index.js';
import { ServiceModel } from './support/service-model.js';

function open(storage: ClientStorage, options: { maxQueuedRuns?: number; maxRunBytes?: number } = {}) {
  const service = new ServiceModel(() => Date.now());
  return createGameClient({ baseUrl: 'http://game.test', gameId: 'demo', storage, fetch: service.fetch, ...options });
}

it('refuses runs it could never send, storing nothing, so the game knows at once', async () => {
  const storage = createMemoryStorage();
  const client = open(storage, { maxRunBytes: 1_024 });
  await client.submitRun('score', { score: 1, durationMs: 1000 });
  const stored = await storage.get('run-queue');

  await expect(client.submitRun('', { score: 1 })).rejects.toThrow(RunNotQueuedError);
  await expect(client.submitRun('a'.repeat(81), { score: 1 })).rejects.toThrow('adapterId must be 1 to 80 characters');
  await expect(client.submitRun('score', [1, 2] as never)).rejects.toThrow('payload must be a JSON object');
  await expect(client.submitRun('score', null as never)).rejects.toThrow('payload must be a JSON object');
  await expect(client.submitRun('score', { replay: 'x'.repeat(1_024) })).rejects.toThrow('larger than 1024 bytes');
  expect(await storage.get('run-queue')).toBe(stored);
});

it('refuses a run when the queue is full instead of dropping an older one', async () => {
  const storage = createMemoryStorage();
  const client = open(storage, { maxQueuedRuns: 2 });
  const first = await client.submitRun('score', { score: 1 });
  const second = await client.submitRun('score', { score: 2 });
  await expect(client.submitRun('score', { score: 3 })).rejects.toThrow('the run queue is full (2 runs)');
  expect((await client.pendingRuns()).map((run) => run.runId)).toEqual([first.runId, second.runId]);
});

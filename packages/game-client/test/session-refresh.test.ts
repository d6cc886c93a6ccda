import { expect, it } from 'vitest';
import { createGameClient, createMemoryStorage } from '../src/index.js';
import { ServiceModel } from './support/service-model.js';

it('refreshes halfway through a short-lived access token rather than before every call', async () => {
  let now = Date.parse('2026-11-21T10:00:00.000Z');
  const service = new ServiceModel(() => now, 30);
  const client = createGameClient({ baseUrl: 'http://game.test', gameId: 'demo', storage: createMemoryStorage(), fetch: service.fetch, now: () => now });
  await client.signIn('dev:short-lived');
  const sendOne = async () => {
    await client.submitRun('score', { score: 1, durationMs: 1000 });
    expect(await client.flush()).toMatchObject({ accepted: 1 });
  };
  await sendOne();
  now += 14_000;
  await sendOne();
  expect(service.refreshes).toBe(0);
  now += 1_000;
  await sendOne();
  expect(service.refreshes).toBe(1);
  now += 14_000;
  await sendOne();
  expect(service.refreshes).toBe(1);
});

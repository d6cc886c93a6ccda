import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { createGameClient, createMemoryStorage, type GameClient } from '../src/index.js';
import { ServiceModel } from './support/service-model.js';

// Background sending after start(): timers, not the game, decide when runs go out. The clock
// and timers are fake; the service is the in-memory model (the integration tests run the same
// paths against the real service with real time).

let clock: number;
let service: ServiceModel;
let online: boolean;
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  clock = Date.parse('2026-11-21T10:00:00.000Z');
  service = new ServiceModel(() => clock);
  online = true;
});
afterEach(() => {
  vi.useRealTimers();
});

function open(): GameClient {
  return createGameClient({
    baseUrl: 'http://game.test',
    gameId: 'demo',
    storage: createMemoryStorage(),
    fetch: service.fetch,
    now: () => clock,
    random: () => 1,
    isOnline: () => online,
    backoff: { baseDelayMs: 1_000, maxDelayMs: 60_000 },
  });
}

async function advance(ms: number): Promise<void> {
  clock += ms;
  await vi.advanceTimersByTimeAsync(ms);
}

it('sends a run queued while started without the game calling flush', async () => {
  const client = open();
  await client.signIn('dev:background');
  client.start();
  await client.submitRun('score', { score: 1, durationMs: 1000 });
  await advance(0);
  expect(service.accepted.size).toBe(1);
  await client.stop();
});

it('retries when the backoff delay has passed, not before', async () => {
  const client = open();
  await client.signIn('dev:retry');
  service.faults.push('answer-500', 'answer-500');
  client.start();
  await client.submitRun('score', { score: 1, durationMs: 1000 });
  await advance(0);
  expect(service.accepted.size).toBe(0);
  await advance(999);
  expect(service.accepted.size).toBe(0);
  await advance(1);
  // Second failure: the next wait doubles.
  await advance(1_999);
  expect(service.accepted.size).toBe(0);
  await advance(1);
  expect(service.accepted.size).toBe(1);
  await client.stop();
});

it('looks again while offline and sends once the network is back', async () => {
  const client = open();
  await client.signIn('dev:offline');
  online = false;
  client.start();
  await client.submitRun('score', { score: 1, durationMs: 1000 });
  await advance(0);
  online = true;
  await advance(29_999);
  expect(service.accepted.size).toBe(0);
  await advance(1);
  expect(service.accepted.size).toBe(1);
  await client.stop();
});

it('sends nothing after stop(); the run stays queued', async () => {
  const client = open();
  await client.signIn('dev:stopped');
  client.start();
  await client.stop();
  await client.submitRun('score', { score: 1, durationMs: 1000 });
  await advance(60_000);
  expect(service.accepted.size).toBe(0);
  expect(await client.pendingRuns()).toHaveLength(1);
});

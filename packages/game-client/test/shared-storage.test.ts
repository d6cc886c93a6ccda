import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createGameClient, createWebStorage, type ClientStorage, type GameClient, type WebStorageLike } from '../src/index.js';
import { createFileStorage } from '../src/node/index.js';
import { ServiceModel, type Fault } from './support/service-model.js';

// Several clients sharing one store through SEPARATE storage objects: two games on one page
// (each GameClient opens its own localStorage wrapper), or a restarted Node game opening the
// same file again while the old client is still finishing. The run queue is one shared
// document, so every read-modify-write must be atomic across those objects.

const directory = mkdtempSync(join(tmpdir(), 'game-client-shared-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

function webStorageArea(): WebStorageLike {
  const values = new Map<string, string>();
  return {
    getItem: (key) => values.get(key) ?? null,
    setItem: (key, value) => void values.set(key, String(value)),
    removeItem: (key) => void values.delete(key),
  };
}

let fileNumber = 0;
/** Opens storage objects that all reach one underlying store. */
const stores: [string, () => () => ClientStorage][] = [
  ['web storage', () => { const area = webStorageArea(); return () => createWebStorage(area); }],
  ['file', () => { const path = join(directory, `shared-${++fileNumber}.json`); return () => createFileStorage(path); }],
];

function openClient(storage: ClientStorage, gameId: string, service: ServiceModel, now: () => number): GameClient {
  return createGameClient({
    baseUrl: 'http://game.test',
    gameId,
    storage,
    fetch: service.fetch,
    now,
    random: () => 0.5,
    backoff: { baseDelayMs: 100, maxDelayMs: 2_000 },
  });
}

describe.each(stores)('clients sharing %s through separate storage objects', (_name, openStore) => {
  it('keeps both runs when two games on one page submit at the same moment', async () => {
    const open = openStore();
    const service = new ServiceModel(() => Date.now());
    const demo = openClient(open(), 'demo', service, Date.now);
    const tiles = openClient(open(), 'tiles', service, Date.now);
    const [a, b] = await Promise.all([demo.submitRun('score', { score: 1, durationMs: 1000 }), tiles.submitRun('score', { score: 2, durationMs: 1000 })]);
    expect((await demo.pendingRuns()).map((run) => run.runId)).toEqual([a.runId]);
    expect((await tiles.pendingRuns()).map((run) => run.runId)).toEqual([b.runId]);
  });

  it('keeps every run when a restarted client and the old one submit concurrently', async () => {
    const open = openStore();
    const service = new ServiceModel(() => Date.now());
    const old = openClient(open(), 'demo', service, Date.now);
    const restarted = openClient(open(), 'demo', service, Date.now);
    const ids = await Promise.all(Array.from({ length: 10 }, (_, index) => (index % 2 ? old : restarted).submitRun('score', { score: index, durationMs: 1000 })));
    expect((await restarted.pendingRuns()).map((run) => run.runId).sort()).toEqual(ids.map(({ runId }) => runId).sort());
  });

  it('leaves no trace of an accepted run when its removal races submits from another client', async () => {
    const open = openStore();
    const service = new ServiceModel(() => Date.now());
    const other = openClient(open(), 'tiles', service, Date.now);
    const submits: Promise<{ runId: string }>[] = [];
    // The moment the service has accepted the run, the other game queues runs of its own.
    const fetch = async (input: string, init: RequestInit) => {
      const response = await service.fetch(input, init);
      if (input.includes('/runs/')) for (let index = 0; index < 3; index += 1) submits.push(other.submitRun('score', { score: index, durationMs: 1000 }));
      return response;
    };
    const sender = createGameClient({ baseUrl: 'http://game.test', gameId: 'demo', storage: open(), fetch });
    await sender.signIn('dev:alice');
    const { runId } = await sender.submitRun('score', { score: 5, durationMs: 1000 });
    expect(await sender.flush()).toMatchObject({ accepted: 1 });
    const queued = await Promise.all(submits);
    expect(service.accepted.has(`alice ${runId}`)).toBe(true);
    expect(await sender.pendingRuns()).toEqual([]);
    expect((await open().get('run-queue')) ?? '').not.toContain(runId);
    expect((await other.pendingRuns()).map((run) => run.runId).sort()).toEqual(queued.map((run) => run.runId).sort());
  });
});

// Random concurrent work by two clients over one store: each client's own
// steps run in order, the two clients' steps interleave freely. Afterwards every submitted run
// has been accepted exactly once and nothing of it remains stored.
const fault = fc.constantFrom<Fault>('drop-request', 'lose-response', 'answer-500', 'answer-429');
const action = fc.oneof(
  { weight: 5, arbitrary: fc.record({ type: fc.constant('submit' as const), score: fc.nat(1000) }) },
  { weight: 3, arbitrary: fc.record({ type: fc.constant('flush' as const), faults: fc.array(fault, { maxLength: 2 }) }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('sign-in' as const) }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('restart' as const) }) },
);
// Each step first yields a few times, so the two clients' storage operations interleave.
const step = fc.record({ action, yields: fc.nat(4) });
type Step = typeof step extends fc.Arbitrary<infer Value> ? Value : never;
const scenario = fc.tuple(fc.array(step, { maxLength: 12 }), fc.array(step, { maxLength: 12 }));

async function checkConcurrentClients(open: () => ClientStorage, games: readonly [string, string], [first, second]: [Step[], Step[]]): Promise<void> {
  let clock = 1_800_000_000_000;
  const service = new ServiceModel(() => clock);
  const submitted = new Set<string>();
  const problems: string[] = [];

  async function play(gameId: string, player: string, steps: readonly Step[]): Promise<GameClient> {
    const make = () => {
      const client = openClient(open(), gameId, service, () => clock);
      client.on('run-rejected', ({ runId, code }) => problems.push(`${runId} rejected: ${code}`));
      client.on('run-expired', ({ runId }) => problems.push(`${runId} expired`));
      return client;
    };
    let client = make();
    for (const { action: current, yields } of steps) {
      for (let index = 0; index < yields; index += 1) await Promise.resolve();
      if (current.type === 'submit') submitted.add((await client.submitRun('score', { score: current.score, durationMs: 1000 })).runId);
      else if (current.type === 'flush') {
        service.faults.push(...current.faults);
        await client.flush();
      } else if (current.type === 'sign-in') await client.signIn(`dev:${player}`);
      else client = make();
    }
    return client;
  }

  const clients = await Promise.all([play(games[0], 'alice', first), play(games[1], 'bob', second)]);
  service.faults.length = 0;
  for (const [index, client] of clients.entries()) {
    await client.signIn(`dev:${index === 0 ? 'alice' : 'bob'}`);
    for (let round = 0; round < 100; round += 1) {
      const report = await client.flush();
      if (report.nextAttemptInMs === undefined) break;
      clock += report.nextAttemptInMs;
    }
  }

  const acceptedTimes = new Map<string, number>();
  for (const key of service.accepted.keys()) {
    const runId = key.slice(key.indexOf(' ') + 1);
    acceptedTimes.set(runId, (acceptedTimes.get(runId) ?? 0) + 1);
  }
  for (const runId of submitted) {
    const times = acceptedTimes.get(runId) ?? 0;
    if (times !== 1) problems.push(`${runId} accepted ${times} times`);
  }
  if ((await open().get('run-queue')) !== undefined) problems.push('the queue key remains after every run was settled');
  expect(problems).toEqual([]);
}

describe.each([
  ['different games', ['demo', 'tiles']],
  // One game: the clients also share the session, and race to claim runs queued before sign-in.
  ['one game, two players', ['demo', 'demo']],
] as const)('two clients (%s) working concurrently over one store', (_name, games) => {
  it('never loses a run and never sends one twice (web storage, separate objects)', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, (input) => {
        const area = webStorageArea();
        return checkConcurrentClients(() => createWebStorage(area), games, input);
      }),
      { numRuns: 120 },
    );
  });

  it('never loses a run and never sends one twice (file storage, separate objects on one path)', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, (input) => {
        const path = join(directory, `model-${++fileNumber}.json`);
        return checkConcurrentClients(() => createFileStorage(path), games, input);
      }),
      { numRuns: 8 },
    );
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createGameClient, createMemoryStorage, type ClientStorage, type GameClient } from '../src/index.js';
import { createFileStorage } from '../src/node/index.js';
import { ServiceModel, type Fault } from './support/service-model.js';

// Random interleavings of submit, flush (with failures), restarts on the same storage, sign-in
// changes and clock jumps past the age limit. Whatever happens, every run is either accepted
// once under its owner or was old enough to be discarded, and nothing of it remains stored.

const maxRunAgeMs = 60 * 60_000;
const players = ['alice', 'bob'] as const;

const fault = fc.constantFrom<Fault>('drop-request', 'lose-response', 'answer-500', 'answer-429');
const action = fc.oneof(
  { weight: 5, arbitrary: fc.record({ type: fc.constant('submit' as const), score: fc.nat(1000) }) },
  { weight: 4, arbitrary: fc.record({ type: fc.constant('flush' as const), faults: fc.array(fault, { maxLength: 4 }) }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('restart' as const) }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 40 * 60_000 }) }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('sign-in' as const), player: fc.constantFrom(...players), faults: fc.array(fault, { maxLength: 1 }) }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('logout' as const) }) },
);

const scenario = fc.record({
  actions: fc.array(action, { maxLength: 40 }),
  drainOrder: fc.constantFrom([...players], [...players].reverse()),
});

type ScenarioInput = typeof scenario extends fc.Arbitrary<infer Value> ? Value : never;

async function checkInterleaving(storage: ClientStorage, { actions, drainOrder }: ScenarioInput): Promise<void> {
  let clock = 1_800_000_000_000;
  const service = new ServiceModel(() => clock);
  const submitted = new Map<string, { payload: unknown; owner: string | undefined }>();
  const expired = new Set<string>();
  const problems: string[] = [];
  let signedIn: string | undefined;

  const open = (): GameClient => {
    const client = createGameClient({
      baseUrl: 'http://game.test',
      gameId: 'demo',
      storage,
      fetch: service.fetch,
      now: () => clock,
      random: () => 0.5,
      maxRunAgeMs,
      backoff: { baseDelayMs: 100, maxDelayMs: 2_000 },
    });
    client.on('run-expired', ({ runId, queuedAt }) => {
      if (clock - queuedAt < maxRunAgeMs) problems.push(`${runId} expired at age ${clock - queuedAt}`);
      expired.add(runId);
    });
    client.on('run-rejected', ({ runId, code }) => problems.push(`${runId} rejected: ${code}`));
    return client;
  };
  let client = open();

  for (const step of actions) {
    switch (step.type) {
      case 'submit': {
        const payload = { score: step.score, durationMs: 1000 };
        const { runId } = await client.submitRun('score', payload);
        submitted.set(runId, { payload, owner: signedIn });
        break;
      }
      case 'flush':
        service.faults.push(...step.faults);
        await client.flush();
        break;
      case 'restart':
        client = open();
        break;
      case 'advance':
        clock += step.ms;
        break;
      case 'sign-in': {
        service.faults.push(...step.faults);
        const result = await client.signIn(`dev:${step.player}`);
        if (result.status === 'signed-in') signedIn = step.player;
        break;
      }
      case 'logout':
        await client.logout();
        signedIn = undefined;
        break;
    }
    service.faults.length = 0;
  }

  // Drain: every player signs in once more and the network behaves.
  for (const player of drainOrder) {
    await client.signIn(`dev:${player}`);
    signedIn = player;
    for (let round = 0; round < 100; round += 1) {
      const report = await client.flush();
      if (report.nextAttemptInMs === undefined) break;
      clock += report.nextAttemptInMs;
    }
  }

  const acceptedUnder = new Map<string, string[]>();
  for (const [key, run] of service.accepted) {
    const runId = key.slice(key.indexOf(' ') + 1);
    acceptedUnder.set(runId, [...(acceptedUnder.get(runId) ?? []), run.playerId]);
    const original = submitted.get(runId);
    if (!original) problems.push(`${runId} accepted but never submitted`);
    else if (run.content !== JSON.stringify(original.payload)) problems.push(`${runId} sent with other content`);
  }
  for (const [runId, { owner }] of submitted) {
    const under = acceptedUnder.get(runId) ?? [];
    if (under.length > 1) problems.push(`${runId} accepted as ${under.length} runs (${under.join(', ')})`);
    if (under.length === 0 && !expired.has(runId)) problems.push(`${runId} lost: neither accepted nor expired`);
    if (owner !== undefined && under.length === 1 && under[0] !== owner) problems.push(`${runId} of ${owner} sent as ${under[0]}`);
  }
  if (service.conflicts > 0) problems.push(`${service.conflicts} run-id conflicts`);
  if ((await storage.get('run-queue')) !== undefined) problems.push('the queue key remains after every run was settled');
  expect(problems).toEqual([]);
}

describe('run queue model', () => {
  it('never loses an unexpired run and never sends one as two runs (memory storage)', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, (input) => checkInterleaving(createMemoryStorage(), input)),
      { numRuns: 600 },
    );
  });

  const directory = mkdtempSync(join(tmpdir(), 'game-client-model-'));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('keeps the same guarantees across restarts on the Node file storage', async () => {
    let file = 0;
    await fc.assert(
      fc.asyncProperty(scenario, (input) => checkInterleaving(createFileStorage(join(directory, `queue-${++file}.json`)), input)),
      { numRuns: 25 },
    );
  });
});

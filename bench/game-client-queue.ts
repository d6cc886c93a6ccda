// The game client's run queue against the real game service (SQLite, in-process on a port):
// how fast runs are queued (every submit is a durable write before any network call) and sent,
// next to the ceilings of the same work done bare: the same atomic file writes without the
// library, and the same POSTs sent with plain fetch.
//
//   npx tsx --conditions=source bench/game-client-queue.ts
//
// BENCH_RUNS (default 200) sets the number of runs per measurement; each is taken 3 times.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, openSync, closeSync, fsyncSync, renameSync, rmSync, writeSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildApp, loadGameConfig } from '@playstack/game-service';
import { createGameClient, createMemoryStorage, type ClientStorage } from '@playstack/game-client';
import { createFileStorage } from '@playstack/game-client/node';

const runs = Number(process.env.BENCH_RUNS ?? 200);
const rounds = 3;
const dataDir = mkdtempSync(join(tmpdir(), 'bench-game-client-'));
const unlimited = '1000000';
const app = await buildApp(
  loadGameConfig({
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    GAME_DEV_AUTH: '1',
    GAME_AUTH_RATE_LIMIT_MAX: unlimited,
    GAME_PLAYER_RATE_LIMIT_MAX: unlimited,
    GAME_RUN_RATE_LIMIT_MAX: unlimited,
  }),
);
await app.listen({ port: 0, host: '127.0.0.1' });
const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;

const payload = (index: number) => ({ score: 1_000 + index, durationMs: 60_000 });
const perSecond = (count: number, ms: number) => (count / ms) * 1000;

try {
  const session = (await (
    await fetch(`${baseUrl}/v1/games/demo/auth/exchange`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ authorizationCode: 'dev:bench-bare' }),
    })
  ).json()) as { accessToken: string };

  /** Ceiling for sending: each run POSTed with plain fetch, one after another. */
  async function bareSend(): Promise<number> {
    const started = performance.now();
    for (let index = 0; index < runs; index += 1) {
      const response = await fetch(`${baseUrl}/v1/games/demo/runs/score`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${session.accessToken}` },
        body: JSON.stringify({ runId: randomBytes(16).toString('base64url'), payload: payload(index) }),
      });
      if (response.status !== 200) throw new Error(`bare POST answered ${response.status}`);
      await response.arrayBuffer();
    }
    return perSecond(runs, performance.now() - started);
  }

  /** Ceiling for durable queueing: the same growing queue document written atomically by hand. */
  function bareQueue(round: number): number {
    const file = join(dataDir, `bare-queue-${round}.json`);
    const queued: unknown[] = [];
    const started = performance.now();
    for (let index = 0; index < runs; index += 1) {
      queued.push({ runId: randomBytes(16).toString('base64url'), gameId: 'demo', adapterId: 'score', playerId: 'p', payload: payload(index), queuedAt: Date.now(), attempts: 0, notBefore: 0 });
      const temporary = `${file}.tmp`;
      const handle = openSync(temporary, 'w');
      writeSync(handle, JSON.stringify({ 'run-queue': JSON.stringify({ format: 1, runs: queued }) }));
      fsyncSync(handle);
      closeSync(handle);
      renameSync(temporary, file);
      const directory = openSync(dataDir, 'r');
      fsyncSync(directory);
      closeSync(directory);
    }
    return perSecond(runs, performance.now() - started);
  }

  async function throughClient(storage: ClientStorage, player: string): Promise<{ submit: number; flush: number }> {
    const client = createGameClient({ baseUrl, gameId: 'demo', storage });
    const signIn = await client.signIn(`dev:${player}`);
    if (signIn.status !== 'signed-in') throw new Error(`sign-in: ${signIn.status}`);
    let started = performance.now();
    for (let index = 0; index < runs; index += 1) await client.submitRun('score', payload(index));
    const submit = perSecond(runs, performance.now() - started);
    started = performance.now();
    const report = await client.flush();
    const flush = perSecond(report.accepted, performance.now() - started);
    if (report.accepted !== runs || report.remaining !== 0) throw new Error(`flush left ${report.remaining} runs`);
    return { submit, flush };
  }

  // Rounds alternate ceiling and library so that load from elsewhere on the machine hits both.
  const samples: Record<string, number[]> = {};
  const record = (name: string, value: number) => (samples[name] ??= []).push(value);
  for (let round = 0; round < rounds; round += 1) {
    record('bare send', await bareSend());
    record('bare queue', bareQueue(round));
    const memory = await throughClient(createMemoryStorage(), `bench-memory-${round}`);
    record('submit memory', memory.submit);
    record('flush memory', memory.flush);
    const file = await throughClient(createFileStorage(join(dataDir, `client-${round}.json`)), `bench-file-${round}`);
    record('submit file', file.submit);
    record('flush file', file.flush);
  }
  const median = (name: string) => samples[name]!.toSorted((a, b) => a - b)[Math.floor(rounds / 2)]!;

  console.log(`${runs} runs per measurement, median of ${rounds} rounds; the queue grows to ${runs} runs and every submit rewrites it`);
  console.log(`ceilings: plain fetch POSTs ${median('bare send').toFixed(0)} runs/s; atomic file writes by hand ${median('bare queue').toFixed(0)} writes/s`);
  const line = (what: string, value: number, ceiling?: number) =>
    console.log(`${what.padEnd(30)} ${value.toFixed(0).padStart(7)} runs/s${ceiling ? `   ${(value / ceiling).toFixed(2)} x ceiling` : ''}`);
  line('submitRun, memory storage', median('submit memory'));
  line('submitRun, file storage', median('submit file'), median('bare queue'));
  line('flush, memory storage', median('flush memory'), median('bare send'));
  line('flush, file storage', median('flush file'), median('bare send'));
} finally {
  await app.close();
  rmSync(dataDir, { recursive: true, force: true });
}

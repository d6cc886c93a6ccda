import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@playstack/server-kit/testing';
import { startGameService, type GameServiceHarness } from './support/game-service-harness.js';

const run = promisify(execFile);
const repositoryRoot = fileURLToPath(new URL('../../..', import.meta.url));

let database: TestDatabase;
let harness: GameServiceHarness;
let directory: string;
beforeAll(async () => {
  database = await createTestDatabase('sqlite');
  harness = await startGameService(database);
  directory = mkdtempSync(join(tmpdir(), 'example-game-'));
});
afterAll(async () => {
  await harness.close();
  await database.dispose();
  rmSync(directory, { recursive: true, force: true });
});

function play(baseUrl: string, rounds: number) {
  return run(
    process.execPath,
    ['--import', 'tsx', '--conditions=source', 'examples/demo-game/play.ts', '--base-url', baseUrl, '--player', 'example', '--rounds', String(rounds), '--storage', join(directory, 'client.json')],
    { cwd: repositoryRoot },
  );
}

it('plays offline, keeps the runs on disk, and sends them when started again with the service reachable', async () => {
  harness.proxy.down = true;
  const offline = await play(harness.proxy.baseUrl, 2);
  expect(offline.stdout).toContain('playing offline (unavailable)');
  expect(offline.stdout).toContain('2 run(s) stay queued for next time');

  harness.proxy.down = false;
  const online = await play(harness.proxy.baseUrl, 1);
  expect(online.stdout).toContain('signed in as example');
  expect(online.stdout.match(/run accepted/g)).toHaveLength(3);
  expect(online.stdout).toMatch(/your best: \d+ \(rank 1 of 1\)/);
});

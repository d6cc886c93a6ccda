// The README's "Try it" commands, run as a person would paste them (bash, curl), against both
// services: a copy-paste example that no longer works fails here.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort } from '@playstack/server-kit/testing';

const root = fileURLToPath(new URL('..', import.meta.url));
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** The shell blocks of the README's "Try it" section, in order. */
function tryItCommands(): string[] {
  const section = readme.slice(readme.indexOf('## Try it'), readme.indexOf('\n## ', readme.indexOf('## Try it') + 1));
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

const workDir = mkdtempSync(join(tmpdir(), 'try-it-'));
const running: ChildProcess[] = [];
const urls = { game: '', observability: '' };

async function startService(entry: string, env: Record<string, string>, url: string): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=source', entry], {
    cwd: root,
    env: { PATH: process.env.PATH, LOG_LEVEL: 'warn', DATA_DIR: join(workDir, 'data'), ...env },
    stdio: 'ignore',
  });
  running.push(child);
  // Two services from their sources at once: over 60 s at load average 19 on 2 cores.
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/readyz`)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${entry} did not become ready`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

beforeAll(async () => {
  const [gamePort, observabilityPort] = [await freePort(), await freePort()];
  urls.game = `http://127.0.0.1:${gamePort}`;
  urls.observability = `http://127.0.0.1:${observabilityPort}`;
  // What `npm start` runs, from the sources: the demo games with dev sign-in.
  await Promise.all([
    startService('packages/game-service/src/main.ts', { GAME_PORT: String(gamePort), GAME_DEV_AUTH: '1' }, urls.game),
    startService('packages/observability-service/src/main.ts', { OBSERVABILITY_PORT: String(observabilityPort), OTLP_GRPC_PORT: '0' }, urls.observability),
  ]);
}, 150_000);

afterAll(() => {
  for (const child of running) child.kill('SIGKILL');
  rmSync(workDir, { recursive: true, force: true });
});

it('the README\'s curl commands sign a player in, submit runs to both adapters, read the board, and send telemetry both ways', async () => {
  const commands = tryItCommands();
  expect(commands).toHaveLength(7);
  // The README addresses the default ports; these services run on free ones.
  const script = commands
    .map((block, index) => `echo "--- block ${index}"\n${block}\necho`)
    .join('\n')
    .replaceAll('http://127.0.0.1:8080', urls.game)
    .replaceAll('http://127.0.0.1:8081', urls.observability);
  const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script], { cwd: workDir, timeout: 60_000 });
  const answers = stdout.split(/--- block \d+\n/).slice(1).map((block) => block.trim());

  expect(answers[0]).toBe(''); // sign-in: the token went into TOKEN
  expect(JSON.parse(answers[1]!)).toMatchObject({ runId: 'run-0001-alice', status: 'accepted', result: { score: 4200, durationMs: 95000 } });
  expect(JSON.parse(answers[2]!)).toMatchObject({ runId: 'tiles-run-0001', adapterId: 'score', status: 'accepted', result: { score: expect.any(Number), maxTile: expect.any(Number) } });
  const [page, me, around] = answers[3]!.split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(page).toMatchObject({ boardId: 'high-score', period: 'all', entries: [{ rank: 1, displayName: 'alice', score: 4200 }], nextCursor: null });
  expect(me).toMatchObject({ total: 1, entry: { rank: 1, score: 4200 }, neighbors: [] });
  expect(around).toMatchObject({ total: 1, entries: [{ rank: 1, displayName: 'alice' }] });
  expect(answers[4]).toBe(''); // setup and key: into CSRF and KEY
  expect(JSON.parse(answers[5]!)).toEqual({ accepted: { occurrences: 1, logs: 0 }, rejected: { occurrences: 0, logs: 0 }, truncated: { strings: 0 }, errors: [] });
  expect(JSON.parse(answers[6]!)).toEqual({});

  // "The dashboard then shows my-game-api under Services": what the dashboard reads.
  const cookie = readFileSync(join(workDir, 'obs-cookies'), 'utf8').match(/obs_session\s+(\S+)/)![1];
  const services = await fetch(`${urls.observability}/api/v1/services`, { headers: { cookie: `obs_session=${cookie}` } });
  expect(JSON.stringify(await services.json())).toContain('my-game-api');
}, 90_000);

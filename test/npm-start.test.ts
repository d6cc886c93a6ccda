import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { freePort } from '@playstack/server-kit/testing';

const root = fileURLToPath(new URL('..', import.meta.url));

async function waitForHealthy(url: string, deadline: number): Promise<Response> {
  for (;;) {
    try {
      const response = await fetch(url);
      if (response.ok) return response;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    if (Date.now() > deadline) throw new Error(`${url} did not become healthy`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The Node.js flags a service's package.json asks for (`nodeFlags`). */
function nodeFlagsOf(service: string): string[] {
  return (JSON.parse(readFileSync(join(root, 'packages', service, 'package.json'), 'utf8')) as { nodeFlags?: string[] }).nodeFlags ?? [];
}

/** Resolves once nothing listens at the URL any more; fails after 15 s. */
async function waitForClosed(url: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    try {
      await fetch(url);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} still answers after shutdown`);
}

interface ProcessRow {
  readonly pid: number;
  readonly parent: number;
  readonly group: number;
  readonly args: string;
}

/** Every process descended from `root` (children, theirs and so on), from `ps` (`-ww`: whole command lines). */
function descendantsOf(root: number): ProcessRow[] {
  const rows = execFileSync('ps', ['-ww', '-e', '-o', 'pid=,ppid=,pgid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => line.trim().match(/^(\d+)\s+(\d+)\s+(\d+)\s+(.*)$/))
    .filter((match): match is RegExpMatchArray => match !== null)
    .map((match) => ({ pid: Number(match[1]), parent: Number(match[2]), group: Number(match[3]), args: match[4]! }));
  const found: ProcessRow[] = [];
  const parents = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const row of rows) {
      if (parents.has(row.parent) && !parents.has(row.pid)) {
        parents.add(row.pid);
        found.push(row);
        grew = true;
      }
    }
  }
  return found;
}

interface Launched {
  readonly child: ChildProcess;
  readonly ports: { readonly game: number; readonly observability: number };
  /** What the launcher and its services wrote to stderr so far. */
  stderr(): string;
  /** Settles once the process has exited and its stderr is read to the end. */
  readonly closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The service process running `entry`, with its command line split on spaces. */
  service(entry: string): { readonly pid: number; readonly group: number; readonly args: string[] } | undefined;
}

/**
 * Starts `command` (`npm start`, `npm run start:game`, ...) in a process group of its own, on free
 * ports and a fresh data directory, runs `body`, then kills it and every process it started (the
 * services run in groups of their own) and removes the directory. A failure carries its stderr.
 */
async function withLauncher(command: string, args: string[], env: NodeJS.ProcessEnv, body: (launched: Launched) => Promise<void>): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'launcher-'));
  const ports = { game: await freePort(), observability: await freePort() };
  const child = spawn(command, args, {
    cwd: root,
    detached: true,
    env: { ...env, GAME_PORT: String(ports.game), OBSERVABILITY_PORT: String(ports.observability), DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  const started: ProcessRow[] = [];
  const service = (entry: string) => {
    const rows = descendantsOf(child.pid!);
    started.push(...rows);
    const row = rows.find((r) => r.args.includes(entry));
    return row && { pid: row.pid, group: row.group, args: row.args.split(' ') };
  };
  try {
    await body({ child, ports, stderr: () => stderr, closed, service });
  } catch (error) {
    throw new Error(`${String(error)}\nstderr of ${[command, ...args].join(' ')}:\n${stderr}`);
  } finally {
    for (const target of [-child.pid!, ...started.map((row) => row.pid)]) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const gameEntry = 'packages/game-service/dist/main.js';
const observabilityEntry = 'packages/observability-service/dist/main.js';

it(
  '`npm start` builds and runs both services on SQLite, each with its Node.js flags; Ctrl-C (SIGINT to the group) stops both cleanly',
  async () => {
    await withLauncher('npm', ['start', '--silent'], process.env, async (launched) => {
      const deadline = Date.now() + 150_000;
      const game = await waitForHealthy(`http://127.0.0.1:${launched.ports.game}/healthz`, deadline);
      expect(await game.json()).toEqual({ status: 'ok' });
      const observability = await waitForHealthy(`http://127.0.0.1:${launched.ports.observability}/healthz`, deadline);
      expect(await observability.json()).toEqual({ status: 'ok' });
      const version = await fetch(`http://127.0.0.1:${launched.ports.game}/version`);
      expect(((await version.json()) as { name: string }).name).toBe('@playstack/game-service');
      // Each service runs with the Node.js flags its package.json lists.
      expect(nodeFlagsOf('game-service')).toContain('--max-semi-space-size=64');
      const [gameService, observabilityService] = [launched.service(gameEntry)!, launched.service(observabilityEntry)!];
      expect(gameService.args).toEqual(expect.arrayContaining(nodeFlagsOf('game-service')));
      // Ctrl-C in a terminal signals the terminal's process group: npm and the launcher, which
      // passes it on once to each service. The services run in groups of their own, or they would
      // get it twice, and a second signal makes a service stop at once, with 1.
      for (const service of [gameService, observabilityService]) expect(service.group).not.toBe(launched.child.pid);
      process.kill(-launched.child.pid!, 'SIGINT');
      await launched.closed;
      await waitForClosed(`http://127.0.0.1:${launched.ports.game}/healthz`);
      await waitForClosed(`http://127.0.0.1:${launched.ports.observability}/healthz`);
      expect(launched.stderr()).not.toContain('exited with');
    });
  },
  200_000,
);

it('the launcher refuses unknown service names', async () => {
  const unknown = spawn(process.execPath, ['scripts/start-all.mjs', 'game-service', 'no-such-service'], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  unknown.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  expect(await new Promise((resolve) => unknown.on('close', resolve))).toBe(2);
  expect(stderr).toContain('unknown service(s): no-such-service');
});

it(
  '`npm run start:game` runs the game service alone, with its flags and only the environment (no demo sign-in); a service killed from outside fails the launcher',
  async () => {
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.GAME_DEV_AUTH;
    await withLauncher('npm', ['run', 'start:game', '--silent'], env, async (launched) => {
      await waitForHealthy(`http://127.0.0.1:${launched.ports.game}/healthz`, Date.now() + 120_000);
      expect(launched.service(gameEntry)?.args).toEqual(expect.arrayContaining(nodeFlagsOf('game-service')));
      expect(launched.service(observabilityEntry)).toBeUndefined();
      // Without GAME_DEV_AUTH in its environment the demo game has no dev sign-in.
      const signIn = await fetch(`http://127.0.0.1:${launched.ports.game}/v1/games/demo/auth/exchange`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ authorizationCode: 'dev:alice' }),
      });
      expect(signIn.status).toBe(401);
      expect(((await signIn.json()) as { error: { code: string; message: string } }).error).toMatchObject({
        code: 'invalid-grant',
        message: expect.stringContaining('dev provider is disabled'),
      });
      expect(launched.stderr()).not.toContain('GAME_DEV_AUTH=1');
      // Killed by something other than the launcher (the OOM killer, say): the launcher exits
      // with 128 + 9, so a supervisor restarting on failure restarts it.
      process.kill(launched.service(gameEntry)!.pid, 'SIGKILL');
      expect((await launched.closed).code).toBe(137);
      expect(launched.stderr()).toContain('game-service exited with SIGKILL');
    });
  },
  150_000,
);

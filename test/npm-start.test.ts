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

/** The command lines of the processes in a process group (`ps`), e.g. a launcher and its services. */
function commandLinesOf(processGroup: number): string[] {
  return execFileSync('ps', ['-e', '-o', 'pgid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => line.trim().match(/^(\d+)\s+(.*)$/))
    .filter((match): match is RegExpMatchArray => match !== null && Number(match[1]) === processGroup)
    .map((match) => match[2]!);
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

interface Launched {
  readonly child: ChildProcess;
  readonly ports: { readonly game: number; readonly observability: number };
  /** What the launcher and its services wrote to stderr so far. */
  stderr(): string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts `command` (`npm start`, or the launcher script) in a process group of its own, on free
 * ports and a fresh data directory, runs `body`, then kills the group and removes the directory.
 * A failure carries the launcher's stderr.
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
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  try {
    await body({ child, ports, stderr: () => stderr, exited });
  } catch (error) {
    throw new Error(`${String(error)}\nstderr of ${[command, ...args].join(' ')}:\n${stderr}`);
  } finally {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The command line of the process running `entry` in the launcher's process group. */
function serviceCommand(launched: Launched, entry: string): string[] | undefined {
  return commandLinesOf(launched.child.pid!)
    .find((command) => command.includes(entry))
    ?.split(' ');
}

it(
  '`npm start` builds and runs both services on SQLite, each with its Node.js flags; SIGTERM stops both',
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
      expect(serviceCommand(launched, 'packages/game-service/dist/main.js')).toEqual(expect.arrayContaining(nodeFlagsOf('game-service')));
      expect(serviceCommand(launched, 'packages/observability-service/dist/main.js')).toBeDefined();
      // Ctrl-C in a terminal signals the whole process group: npm, the launcher and both services.
      process.kill(-launched.child.pid!, 'SIGTERM');
      const { code, signal } = await launched.exited;
      expect(code === 0 || signal === 'SIGTERM').toBe(true);
      await waitForClosed(`http://127.0.0.1:${launched.ports.game}/healthz`);
      await waitForClosed(`http://127.0.0.1:${launched.ports.observability}/healthz`);
    });
  },
  200_000,
);

it(
  'the launcher runs only the services it is given, reading only the environment (no demo sign-in), and refuses unknown names',
  async () => {
    const unknown = spawn(process.execPath, ['scripts/start-all.mjs', 'game-service', 'no-such-service'], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
    let unknownStderr = '';
    unknown.stderr.on('data', (chunk: Buffer) => (unknownStderr += chunk.toString()));
    expect(await new Promise((resolve) => unknown.on('exit', resolve))).toBe(2);
    expect(unknownStderr).toContain('unknown service(s): no-such-service');

    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.GAME_DEV_AUTH;
    await withLauncher(process.execPath, ['scripts/start-all.mjs', 'game-service'], env, async (launched) => {
      await waitForHealthy(`http://127.0.0.1:${launched.ports.game}/healthz`, Date.now() + 60_000);
      expect(serviceCommand(launched, 'packages/game-service/dist/main.js')).toEqual(expect.arrayContaining(nodeFlagsOf('game-service')));
      expect(serviceCommand(launched, 'observability-service')).toBeUndefined();
      await expect(fetch(`http://127.0.0.1:${launched.ports.observability}/healthz`)).rejects.toThrow();
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
      launched.child.kill('SIGTERM');
      expect((await launched.exited).code).toBe(0);
      await waitForClosed(`http://127.0.0.1:${launched.ports.game}/healthz`);
    });
  },
  90_000,
);

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { freePort } from '@playstack/server-kit/testing';
import { builds, staleReason } from '../scripts/build.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Polls `url` until it answers 200. For `/readyz`: the service is started, not only alive. */
async function waitForOk(url: string, deadline: number): Promise<Response> {
  for (;;) {
    try {
      const response = await fetch(url);
      if (response.ok) return response;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer 200`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The Node.js flags a service's package.json asks for (`nodeFlags`). */
function nodeFlagsOf(service: string): string[] {
  return (JSON.parse(readFileSync(join(root, 'packages', service, 'package.json'), 'utf8')) as { nodeFlags?: string[] }).nodeFlags ?? [];
}

/** Resolves once nothing listens at the URL any more; fails after `withinMs`. */
async function waitForClosed(url: string, withinMs = 15_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    try {
      await fetch(url);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} still answers ${withinMs} ms after the stop was asked for`);
}

/** Whether a process with this pid exists (a zombie no longer counts: it holds no port). */
/**
 * Waits (up to `withinMs`) for a process to be gone. A process closes its pipes before the kernel marks
 * it exited, so right after its output ends it may still show as running for a moment (seen
 * under load in CI).
 */
async function expectGone(pid: number, what = String(pid), withinMs = 2_000): Promise<void> {
  await vi.waitFor(() => expect(alive(pid), what).toBe(false), { timeout: withinMs, interval: 20 });
}

function alive(pid: number): boolean {
  try {
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
  } catch {
    return false;
  }
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
  /** What the launcher and its services wrote so far, stdout and stderr. */
  output(): string;
  /** Settles once the process has exited and its output is read to the end. */
  readonly closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The process running `entry` (a service's dist/main.js, the launcher's script), its command line split on spaces. */
  process(entry: string): { readonly pid: number; readonly group: number; readonly args: string[] } | undefined;
  /** Both services are ready (/readyz answers 200). */
  bothReady(): Promise<void>;
}

/**
 * Starts `command` (`npm start`, `npm run start:game`, ...) in a process group of its own, on free
 * ports and a fresh data directory, runs `body`, then kills it and every process it started (the
 * services run in groups of their own) and removes the directory. A failure carries the output.
 */
async function withLauncher(command: string, args: string[], env: NodeJS.ProcessEnv, body: (launched: Launched) => Promise<void>): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'launcher-'));
  const ports = { game: await freePort(), observability: await freePort() };
  const child = spawn(command, args, {
    cwd: root,
    detached: true,
    env: { ...env, GAME_PORT: String(ports.game), OBSERVABILITY_PORT: String(ports.observability), OTLP_GRPC_PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  const started: ProcessRow[] = [];
  const process_ = (entry: string) => {
    const rows = descendantsOf(child.pid!);
    started.push(...rows);
    const row = rows.find((r) => r.args.includes(entry));
    return row && { pid: row.pid, group: row.group, args: row.args.split(' ') };
  };
  const bothReady = async () => {
    const deadline = Date.now() + 150_000;
    await waitForOk(`http://127.0.0.1:${ports.game}/readyz`, deadline);
    await waitForOk(`http://127.0.0.1:${ports.observability}/readyz`, deadline);
  };
  try {
    await body({ child, ports, output: () => output, closed, process: process_, bothReady });
  } catch (error) {
    throw new Error(`${String(error)}\noutput of ${[command, ...args].join(' ')}:\n${output}`);
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
const launcherEntry = 'scripts/start-all.mjs';
/** What a supervisor may expect: every service gone and its port free this soon after a stop signal. */
const stopWithinMs = 10_000;

it(
  '`npm start` builds and runs both services on SQLite, each with its Node.js flags; Ctrl-C (SIGINT to the group) stops both cleanly',
  async () => {
    await withLauncher('npm', ['start', '--silent'], process.env, async (launched) => {
      await launched.bothReady();
      const version = await fetch(`http://127.0.0.1:${launched.ports.game}/version`);
      expect(((await version.json()) as { name: string }).name).toBe('@playstack/game-service');
      // Each service runs with the Node.js flags its package.json lists.
      expect(nodeFlagsOf('game-service')).toContain('--max-semi-space-size=64');
      const [gameService, observabilityService] = [launched.process(gameEntry)!, launched.process(observabilityEntry)!];
      expect(gameService.args).toEqual(expect.arrayContaining(nodeFlagsOf('game-service')));
      expect(nodeFlagsOf('observability-service')).toContain('--max-semi-space-size=64');
      expect(observabilityService.args).toEqual(expect.arrayContaining(nodeFlagsOf('observability-service')));
      // Ctrl-C in a terminal signals the terminal's process group: npm and the launcher (npm also
      // forwards it to the launcher: the launcher takes the two as one request). The services run
      // in groups of their own, or they would get it twice, and a second signal makes a service
      // stop at once, with 1.
      for (const service of [gameService, observabilityService]) expect(service.group).not.toBe(launched.child.pid);
      process.kill(-launched.child.pid!, 'SIGINT');
      expect(await launched.closed).toEqual({ code: 0, signal: null });
      await waitForClosed(`http://127.0.0.1:${launched.ports.game}/healthz`);
      await waitForClosed(`http://127.0.0.1:${launched.ports.observability}/healthz`);
      expect(launched.output()).not.toContain('exited with');
      expect(launched.output()).toContain('game-service and observability-service stopped (SIGINT); exit 0');
    });
  },
  200_000,
);

describe('a supervisor signalling the npm process alone', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s: npm passes it to the launcher, both services stop within 10 s, their ports are free, and npm exits 0',
    async (signal) => {
      await withLauncher('npm', ['start', '--silent'], process.env, async (launched) => {
        await launched.bothReady();
        const services = [launched.process(gameEntry)!, launched.process(observabilityEntry)!];
        const askedAt = Date.now();
        process.kill(launched.child.pid!, signal);
        expect(await launched.closed).toEqual({ code: 0, signal: null });
        await waitForClosed(`http://127.0.0.1:${launched.ports.game}/healthz`, stopWithinMs - (Date.now() - askedAt));
        await waitForClosed(`http://127.0.0.1:${launched.ports.observability}/healthz`, stopWithinMs - (Date.now() - askedAt));
        for (const service of services) await expectGone(service.pid);
        expect(Date.now() - askedAt).toBeLessThan(stopWithinMs);
        expect(launched.output()).toContain(`stopped (${signal}); exit 0`);
      });
    },
    200_000,
  );

  it(
    'SIGHUP: npm does not handle it and dies of it (npm forwards only SIGINT and SIGTERM); the launcher notices its parent gone and stops both services cleanly within 10 s',
    async () => {
      await withLauncher('npm', ['start', '--silent'], process.env, async (launched) => {
        await launched.bothReady();
        const services = [launched.process(gameEntry)!, launched.process(observabilityEntry)!];
        const launcher = launched.process(launcherEntry)!;
        const askedAt = Date.now();
        process.kill(launched.child.pid!, 'SIGHUP');
        await waitForClosed(`http://127.0.0.1:${launched.ports.game}/healthz`, stopWithinMs);
        await waitForClosed(`http://127.0.0.1:${launched.ports.observability}/healthz`, stopWithinMs - (Date.now() - askedAt));
        // The launcher's output pipe is also the test's: `closed` settles when it has exited too.
        expect(await launched.closed).toEqual({ code: null, signal: 'SIGHUP' });
        for (const pid of [...services.map((service) => service.pid), launcher.pid]) await expectGone(pid);
        expect(launched.output()).toMatch(/stopped \(parent process \d+ is gone\); exit 0/);
      });
    },
    200_000,
  );
});

it.each(['SIGHUP', 'SIGTERM'] as const)(
  'the launcher run directly (`node scripts/start-all.mjs`, as a systemd unit does) stops both services on %s and exits 0',
  async (signal) => {
    await withLauncher(process.execPath, [launcherEntry], process.env, async (launched) => {
      await launched.bothReady();
      process.kill(launched.child.pid!, signal);
      expect(await launched.closed).toEqual({ code: 0, signal: null });
      await waitForClosed(`http://127.0.0.1:${launched.ports.game}/healthz`, stopWithinMs);
      await waitForClosed(`http://127.0.0.1:${launched.ports.observability}/healthz`, stopWithinMs);
      expect(launched.output()).toContain(`stopped (${signal}); exit 0`);
    });
  },
  200_000,
);

describe('no service outlives what started it', () => {
  it.each([
    ['npm', 'npm'],
    ['the launcher', launcherEntry],
  ] as const)(
    'SIGKILL to %s: both services stop by themselves within a few seconds',
    async (_who, target) => {
      await withLauncher('npm', ['start', '--silent'], process.env, async (launched) => {
        await launched.bothReady();
        const services = [launched.process(gameEntry)!, launched.process(observabilityEntry)!];
        const launcher = launched.process(launcherEntry)!;
        process.kill(target === 'npm' ? launched.child.pid! : launcher.pid, 'SIGKILL');
        await waitForClosed(`http://127.0.0.1:${launched.ports.game}/healthz`, 5_000);
        await waitForClosed(`http://127.0.0.1:${launched.ports.observability}/healthz`, 5_000);
        for (const row of [...services, launcher]) await expectGone(row.pid, row.args.join(' '), 5_000);
      });
    },
    200_000,
  );
});

it(
  'a launcher killed while a service is still loading its modules (the channel closed before anyone listened): the service stops by itself once running, exit 0',
  async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'early-'));
    // As the launcher starts it, from its sources (seconds of module loading under tsx).
    const service = spawn(process.execPath, ['--import', 'tsx', '--conditions=source', 'packages/game-service/src/main.ts'], {
      cwd: root,
      env: { PATH: process.env.PATH, DATA_DIR: dataDir, GAME_PORT: String(await freePort()), LOG_FORMAT: 'json', PLAYSTACK_LAUNCHER_CHANNEL: '1' },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    let output = '';
    service.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    service.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    // 'exit', not 'close': tsx's esbuild helper may hold the output pipes a moment longer.
    const exited = new Promise<number | null>((resolve) => service.on('exit', (code) => resolve(code)));
    try {
      // The launcher's end, as its death would: the channel closes at once.
      service.disconnect();
      const code = await Promise.race([exited, new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 60_000))]);
      expect(code, output).toBe(0);
      expect(output).toContain('the launcher that started this service is gone');
      expect(output).toMatch(/stopped \(the launcher is gone\)/);
    } finally {
      service.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
  150_000,
);

it('the launcher refuses unknown service names', async () => {
  const unknown = spawn(process.execPath, [launcherEntry, 'game-service', 'no-such-service'], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  unknown.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  expect(await new Promise((resolve) => unknown.on('close', resolve))).toBe(2);
  expect(stderr).toContain('unknown service(s): no-such-service');
});

it('`npm start` does not rebuild when nothing changed since the last build, and names the change when something did', () => {
  // What the launcher does first (the tests above did it already, unless this one runs alone).
  execFileSync(process.execPath, ['--input-type=module', '-e', "process.exitCode = (await import('./scripts/build.mjs')).buildIfStale(() => {})"], { cwd: root, stdio: 'ignore' });
  for (const build of builds) expect(staleReason(build), build.name).toBeUndefined();
  const source = join(root, 'packages/game-service/src/main.ts');
  const { atime, mtime } = statSync(source);
  try {
    const later = new Date(Date.now() + 1_000);
    utimesSync(source, later, later);
    expect(staleReason(builds.find((build) => build.name === 'services')!)).toBe('packages/game-service/src/main.ts changed');
    expect(staleReason(builds.find((build) => build.name === 'dashboard')!)).toBeUndefined();
  } finally {
    utimesSync(source, atime, mtime);
  }
});

it(
  '`npm run start:game` runs the game service alone, with its flags and only the environment (no demo sign-in); a service killed from outside fails the launcher',
  async () => {
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.GAME_DEV_AUTH;
    await withLauncher('npm', ['run', 'start:game', '--silent'], env, async (launched) => {
      await waitForOk(`http://127.0.0.1:${launched.ports.game}/readyz`, Date.now() + 120_000);
      expect(launched.process(gameEntry)?.args).toEqual(expect.arrayContaining(nodeFlagsOf('game-service')));
      expect(launched.process(observabilityEntry)).toBeUndefined();
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
      expect(launched.output()).not.toContain('GAME_DEV_AUTH=1');
      // Killed by something other than the launcher (the OOM killer, say): the launcher exits
      // with 128 + 9, so a supervisor restarting on failure restarts it.
      process.kill(launched.process(gameEntry)!.pid, 'SIGKILL');
      expect((await launched.closed).code).toBe(137);
      expect(launched.output()).toContain('game-service exited with SIGKILL');
    });
  },
  150_000,
);

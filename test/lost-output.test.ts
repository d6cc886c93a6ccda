// A service whose output is gone (its terminal hung up, the reader of its stdout pipe went
// away) stops as on SIGTERM and exits: it neither runs on unheard nor hangs or spins at exit.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { freePort } from '@playstack/server-kit/testing';
import { alive, ProcessTrees } from './support/process-tree.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const gameService = 'packages/game-service/src/main.ts';
const started = new ProcessTrees();
const dataDirs: string[] = [];
afterAll(() => {
  started.killAll();
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'lost-output-'));
  dataDirs.push(dir);
  return dir;
}

/** Resolves once `check()` holds; fails after `withinMs`, with `describe()`. */
async function waitUntil(check: () => boolean, withinMs: number, describe: () => string): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(describe());
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

it(
  'its terminal hangs up (the window closed): the service stops cleanly (its SQLite database closed) and exits within 10 s',
  async () => {
    const dir = dataDir();
    const port = await freePort();
    // `script` gives the service a terminal of its own, the service leading its session as in a
    // terminal window; killing `script` closes the terminal: the service gets SIGHUP, and any
    // write to the terminal fails (EIO).
    const terminal = spawn('script', ['-qefc', `exec node --import tsx --conditions=source ${gameService}`, '/dev/null'], {
      cwd: root,
      env: { PATH: process.env.PATH, TERM: 'xterm-256color', DATA_DIR: dir, GAME_PORT: String(port) },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    started.track(terminal.pid!);
    let output = '';
    terminal.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await waitUntil(() => output.includes('first run'), 60_000, () => `no start banner in:\n${output}`);
    const service = Number(readFileSync(`/proc/${terminal.pid}/task/${terminal.pid}/children`, 'utf8').trim());
    started.track(service);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    // Open in WAL mode, the database has its write-ahead log beside it until it is closed.
    expect(existsSync(join(dir, 'game.sqlite-wal'))).toBe(true);

    terminal.kill('SIGKILL');
    await waitUntil(() => !alive(service), 10_000, () => `the service (pid ${service}) still runs 10 s after its terminal hung up`);
    expect(existsSync(join(dir, 'game.sqlite-wal'))).toBe(false);
  },
  90_000,
);

it(
  'the reader of its stdout pipe goes away (a log collector stopped): at its next line the service stops as on SIGTERM and exits 0',
  async () => {
    const port = await freePort();
    const service = spawn(process.execPath, ['--import', 'tsx', '--conditions=source', gameService], {
      cwd: root,
      env: { PATH: process.env.PATH, DATA_DIR: dataDir(), GAME_PORT: String(port), LOG_FORMAT: 'json' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started.track(service.pid!);
    const exited = new Promise<number | null>((resolve) => service.on('exit', (code) => resolve(code)));
    let output = '';
    service.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    service.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await waitUntil(() => output.includes('first run'), 60_000, () => `no start banner in:\n${output}`);

    // Nobody reads the pipe any more; the next line (this request's) fails with EPIPE.
    service.stdout.destroy();
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    const code = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve('still running after 10 s'), 10_000))]);
    expect(code).toBe(0);
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  },
  90_000,
);

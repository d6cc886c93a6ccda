import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { freePort } from '@playstack/server-kit/testing';
import { ProcessTrees } from './support/process-tree.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const ansi = /\u001b\[[0-9;]*m/g;
// `script` and the service it runs, killed by pid even when a test times out.
const processes = new ProcessTrees();
afterAll(() => processes.killAll());

/** Resolves once `read()` matches `pattern`; fails after `withinMs`. */
async function waitForOutput(read: () => string, pattern: RegExp, withinMs = 60_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!pattern.test(read())) {
    if (Date.now() > deadline) throw new Error(`no ${pattern} in:\n${read()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

it(
  'on a terminal: one readable, coloured line per event with the service name, a banner with the URLs and the first-run step, no line per 200, a last line on Ctrl-C',
  async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'terminal-'));
    const port = await freePort();
    // `script` runs the service on a pseudo-terminal of its own, as a person's shell would.
    const service = spawn('script', ['-qefc', 'exec node --import tsx --conditions=source packages/game-service/src/main.ts', '/dev/null'], {
      cwd: root,
      env: { PATH: process.env.PATH, TERM: 'xterm-256color', DATA_DIR: dataDir, GAME_PORT: String(port) },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    processes.track(service.pid!);
    let output = '';
    service.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => service.on('close', (code) => resolve(code)));
    const lines = () => output.replace(ansi, '').split(/\r?\n/).filter(Boolean);
    try {
      await waitForOutput(() => output, /first run/);
      processes.track(service.pid!);
      const url = `http://127.0.0.1:${port}`;
      // Every line readable: time, level, the service, the message.
      for (const line of lines()) expect(line).toMatch(/^\d\d:\d\d:\d\d (INFO|WARN)  game-service  \S/);
      // The banner ends the start: where it listens, the admin pages, the first step. (Before it,
      // what the service did on this first start: the access-token secret it generated.)
      expect(lines().slice(-3)).toEqual([
        expect.stringMatching(new RegExp(`^\\d\\d:\\d\\d:\\d\\d INFO  game-service  listening at ${url}$`)),
        expect.stringMatching(new RegExp(`^\\d\\d:\\d\\d:\\d\\d INFO  game-service  admin pages: ${url}/admin/$`)),
        expect.stringMatching(new RegExp(`^\\d\\d:\\d\\d:\\d\\d INFO  game-service  first run: register the first administrator at ${url}/admin/register$`)),
      ]);
      expect(output).toContain('\u001b[32mINFO');
      for (let i = 0; i < 5; i++) expect((await fetch(`${url}/healthz`)).status).toBe(200);
      expect((await fetch(`${url}/v1/games/demo/leaderboards/high-score`)).status).toBe(401);
      const started = lines().length;
      // Ctrl-C: the terminal sends SIGINT to the service.
      service.stdin.write('\u0003');
      expect(await exited).toBe(0);
      // No line for the 200s and the 401 above; the shutdown, and a last line.
      expect(lines().slice(started)).toEqual([
        // The terminal echoes the Ctrl-C as ^C.
        expect.stringMatching(/^(\^C)?\d\d:\d\d:\d\d INFO  game-service  shutting down \(SIGINT\)$/),
        expect.stringMatching(/^\d\d:\d\d:\d\d INFO  game-service  stopped \(SIGINT\) in \d+ ms, after running \d+ s$/),
      ]);
    } finally {
      processes.killAll();
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
  90_000,
);

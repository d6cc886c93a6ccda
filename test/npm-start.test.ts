import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
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

it(
  '`npm start` builds and runs both services on SQLite; SIGTERM stops both',
  async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'npm-start-'));
    const [gamePort, observabilityPort] = [await freePort(), await freePort()];
    const child = spawn('npm', ['start', '--silent'], {
      cwd: root,
      detached: true,
      env: { ...process.env, GAME_PORT: String(gamePort), OBSERVABILITY_PORT: String(observabilityPort), DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal })),
    );
    try {
      const deadline = Date.now() + 150_000;
      const game = await waitForHealthy(`http://127.0.0.1:${gamePort}/healthz`, deadline);
      expect(await game.json()).toEqual({ status: 'ok' });
      const observability = await waitForHealthy(`http://127.0.0.1:${observabilityPort}/healthz`, deadline);
      expect(await observability.json()).toEqual({ status: 'ok' });
      const version = await fetch(`http://127.0.0.1:${gamePort}/version`);
      expect(((await version.json()) as { name: string }).name).toBe('@playstack/game-service');
      // Ctrl-C in a terminal signals the whole process group: npm, the launcher and both services.
      process.kill(-child.pid!, 'SIGTERM');
      const { code, signal } = await exited;
      expect(code === 0 || signal === 'SIGTERM').toBe(true);
      await waitForClosed(`http://127.0.0.1:${gamePort}/healthz`);
      await waitForClosed(`http://127.0.0.1:${observabilityPort}/healthz`);
    } catch (error) {
      throw new Error(`${String(error)}\nstderr of npm start:\n${stderr}`);
    } finally {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
  200_000,
);

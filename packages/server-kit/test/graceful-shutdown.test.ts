import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const fixture = fileURLToPath(new URL('./fixtures/slow-service.ts', import.meta.url));

it('on SIGTERM during a slow request, the request completes and the process exits 0', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'shutdown-'));
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=source', fixture], {
    env: { ...process.env, DATA_DIR: dataDir, SLOW_ROUTE_MS: '800' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        const match = /listening (\d+)/.exec(chunk.toString());
        if (match) resolve(Number(match[1]));
      });
      child.on('exit', (code) => reject(new Error(`fixture exited early with ${code}`)));
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const slow = fetch(`http://127.0.0.1:${port}/slow`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    child.kill('SIGTERM');
    const response = await slow;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ finished: true });
    expect(await exited).toBe(0);
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  } finally {
    child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});

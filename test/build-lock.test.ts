import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { withBuildLock } from '../scripts/build.mjs';

const buildScript = fileURLToPath(new URL('../scripts/build.mjs', import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'build-lock-'));
  dirs.push(dir);
  return dir;
}

/** A process that holds `lock` for `holdMs`, writing when it starts and ends to `log`; resolves with what it said. */
function contender(name: string, lock: string, log: string, holdMs: number): Promise<string> {
  const script = `
    const { appendFileSync } = await import('node:fs');
    const { withBuildLock } = await import(${JSON.stringify(buildScript)});
    withBuildLock(() => {
      appendFileSync(${JSON.stringify(log)}, 'start ${name}\\n');
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ${holdMs});
      appendFileSync(${JSON.stringify(log)}, 'end ${name}\\n');
    }, (message) => process.stdout.write(message), ${JSON.stringify(lock)});
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let said = '';
  child.stdout.on('data', (chunk: Buffer) => (said += chunk.toString()));
  return new Promise((resolve, reject) => child.on('close', (code) => (code === 0 ? resolve(said) : reject(new Error(`${name} exited ${code}`)))));
}

it('lets one process build at a time: a second one waits for the first to finish, then runs', async () => {
  const dir = scratch();
  const lock = join(dir, 'lock');
  const log = join(dir, 'log');
  writeFileSync(log, '');
  const first = contender('first', lock, log, 800);
  // The second starts once the first holds the lock.
  for (let waited = 0; !existsSync(join(lock, 'pid')) && waited < 10_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
  const second = contender('second', lock, log, 10);
  const [firstSaid, secondSaid] = await Promise.all([first, second]);
  expect(readFileSync(log, 'utf8').trim().split('\n')).toEqual(['start first', 'end first', 'start second', 'end second']);
  expect(firstSaid).toBe('');
  expect(secondSaid).toBe('waiting for another build in this checkout to finish');
  expect(existsSync(lock)).toBe(false);
});

it("takes over a lock whose holder died, and releases the lock when the body throws", () => {
  const dir = scratch();
  const lock = join(dir, 'lock');
  // The pid of a process that has exited.
  const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
  mkdirSync(lock);
  writeFileSync(join(lock, 'pid'), gone);
  expect(withBuildLock(() => 'ran', () => {}, lock)).toBe('ran');
  expect(existsSync(lock)).toBe(false);
  expect(() =>
    withBuildLock(
      () => {
        throw new Error('build failed');
      },
      () => {},
      lock,
    ),
  ).toThrow('build failed');
  expect(existsSync(lock)).toBe(false);
});

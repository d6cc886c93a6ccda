import { fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryStorage, createWebStorage, type ClientStorage, type WebStorageLike } from '../src/index.js';
import { createFileStorage } from '../src/node/index.js';

const directory = mkdtempSync(join(tmpdir(), 'game-client-storage-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** A Storage with localStorage's semantics (string values, null for missing keys). */
function webStorageArea(): WebStorageLike & { keys(): string[] } {
  const values = new Map<string, string>();
  return {
    getItem: (key) => values.get(key) ?? null,
    setItem: (key, value) => void values.set(key, String(value)),
    removeItem: (key) => void values.delete(key),
    keys: () => [...values.keys()],
  };
}

let fileNumber = 0;
const implementations: [string, () => ClientStorage][] = [
  ['memory', () => createMemoryStorage()],
  ['web storage', () => createWebStorage(webStorageArea())],
  ['file', () => createFileStorage(join(directory, `storage-${++fileNumber}.json`))],
];

describe.each(implementations)('%s storage', (_name, create) => {
  it('returns what was set, undefined for missing keys, and forgets deleted keys', async () => {
    const storage = create();
    expect(await storage.get('run-queue')).toBeUndefined();
    await storage.set('run-queue', '{"format":1}');
    await storage.set('session:demo', 'token');
    expect(await storage.get('run-queue')).toBe('{"format":1}');
    await storage.delete('run-queue');
    expect(await storage.get('run-queue')).toBeUndefined();
    expect(await storage.get('session:demo')).toBe('token');
  });

  it('keeps every one of many concurrent writes to different keys', async () => {
    const storage = create();
    await Promise.all(Array.from({ length: 50 }, (_, index) => storage.set(`key-${index}`, `value-${index}`)));
    for (let index = 0; index < 50; index += 1) expect(await storage.get(`key-${index}`)).toBe(`value-${index}`);
  });
});

describe('web storage', () => {
  it('prefixes its keys so it shares localStorage with the rest of the game', async () => {
    const area = webStorageArea();
    await createWebStorage(area).set('run-queue', 'x');
    await createWebStorage(area, 'other-game:').set('run-queue', 'y');
    expect(area.keys().sort()).toEqual(['other-game:run-queue', 'playstack:run-queue']);
  });

  it('rejects a write the browser refuses (quota), so the caller knows nothing was stored', async () => {
    const full: WebStorageLike = { ...webStorageArea(), setItem: () => { throw new Error('QuotaExceededError'); } };
    await expect(createWebStorage(full).set('run-queue', 'x')).rejects.toThrow('QuotaExceededError');
  });
});

describe('file storage', () => {
  it('is seen whole by a new storage opened on the same file (a restart)', async () => {
    const path = join(directory, 'restart.json');
    await createFileStorage(path).set('run-queue', 'queued');
    expect(await createFileStorage(path).get('run-queue')).toBe('queued');
  });

  it('replaces the file by rename, leaving no temporary files behind', async () => {
    const path = join(directory, 'nested', 'rename.json');
    const storage = createFileStorage(path);
    await storage.set('a', '1');
    const before = statSync(path).ino;
    await storage.set('a', '2');
    expect(statSync(path).ino).not.toBe(before);
    expect(readdirSync(join(directory, 'nested'))).toEqual(['rename.json']);
  });

  it('does not rewrite the file when a value is set to what it already is', async () => {
    const path = join(directory, 'unchanged.json');
    const storage = createFileStorage(path);
    await storage.set('a', '1');
    const before = statSync(path).ino;
    await storage.set('a', '1');
    await storage.delete('missing');
    expect(statSync(path).ino).toBe(before);
  });

  it('refuses a file that is not its own rather than overwriting it', async () => {
    const path = join(directory, 'foreign.json');
    writeFileSync(path, '[1,2,3]');
    await expect(createFileStorage(path).get('a')).rejects.toThrow('not a game client storage file');
    expect(readFileSync(path, 'utf8')).toBe('[1,2,3]');
  });

  it('removes temporary files a killed writer left behind, but not one being written now', async () => {
    const nested = join(directory, 'leftovers');
    mkdirSync(nested);
    const path = join(nested, 'client.json');
    writeFileSync(`${path}.stale.tmp`, 'half a queue');
    const longAgo = new Date(Date.now() - 10 * 60_000);
    utimesSync(`${path}.stale.tmp`, longAgo, longAgo);
    writeFileSync(`${path}.fresh.tmp`, 'being written');
    writeFileSync(join(nested, 'unrelated.tmp'), 'not ours');
    await createFileStorage(path).set('a', '1');
    expect(readdirSync(nested).sort()).toEqual(['client.json', 'client.json.fresh.tmp', 'unrelated.tmp']);
  });

  it('holds a complete old or new value after a process is killed in the middle of writing', async () => {
    const path = join(directory, 'crash.json');
    const writer = fork(new URL('./support/storage-writer.ts', import.meta.url), [path], {
      execArgv: ['--import', 'tsx', '--conditions=source'],
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    // The writer reports each completed write; kill it without warning after a few.
    let completed = 0;
    await new Promise<void>((resolve) => {
      writer.on('message', () => {
        completed += 1;
        if (completed === 25) {
          writer.kill('SIGKILL');
          resolve();
        }
      });
    });
    await new Promise((resolve) => writer.once('exit', resolve));
    const value = await createFileStorage(path).get('run-queue');
    const document = JSON.parse(value!) as { generation: number; filler: string };
    expect(document.generation).toBeGreaterThanOrEqual(25);
    expect(document.filler).toHaveLength(200_000);
  });
});

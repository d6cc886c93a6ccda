import { fork, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
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

/** Opens storage objects that all reach one store (memory storage has only the one object). */
const sharedStores: [string, () => () => ClientStorage][] = [
  ['memory', () => { const storage = createMemoryStorage(); return () => storage; }],
  ['web storage', () => { const area = webStorageArea(); return () => createWebStorage(area); }],
  ['file', () => { const path = join(directory, `shared-${++fileNumber}.json`); return () => createFileStorage(path); }],
];

const increment = (current: string | undefined) => ({ value: String(Number(current ?? '0') + 1), result: Number(current ?? '0') + 1 });

describe.each(sharedStores)('%s storage update', (_name, openStore) => {
  it('applies every one of many concurrent read-modify-writes made through separate storage objects', async () => {
    const open = openStore();
    const objects = [open(), open(), open()];
    const results = await Promise.all(Array.from({ length: 30 }, (_, index) => objects[index % 3]!.update('counter', increment)));
    expect(await open().get('counter')).toBe('30');
    expect([...results].sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, index) => index + 1));
  });

  it('writes nothing when the change throws, deletes the key for undefined, and hands back the result', async () => {
    const storage = openStore()();
    await storage.set('k', 'before');
    await expect(storage.update('k', () => { throw new Error('refused'); })).rejects.toThrow('refused');
    expect(await storage.get('k')).toBe('before');
    expect(await storage.update('k', (current) => ({ value: undefined, result: current }))).toBe('before');
    expect(await storage.get('k')).toBeUndefined();
    expect(await storage.update('k', (current) => ({ value: current, result: 'unchanged' }))).toBe('unchanged');
    expect(await storage.get('k')).toBeUndefined();
  });
});

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

  it('makes read-modify-writes from several processes on one file atomic (lock file)', async () => {
    const path = join(directory, 'processes.json');
    const workers = [0, 1].map(() =>
      fork(new URL('./support/storage-counter.ts', import.meta.url), [path, '25'], {
        execArgv: ['--import', 'tsx', '--conditions=source'],
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      }),
    );
    await Promise.all(workers.map((worker) => new Promise((resolve) => worker.once('message', resolve))));
    const exits = workers.map((worker) => new Promise<number | null>((resolve) => worker.once('exit', resolve)));
    // All three start together: two processes and this one, each through its own storage object.
    for (const worker of workers) worker.send('go');
    const local = (async () => {
      for (let index = 0; index < 25; index += 1) await createFileStorage(path).update('counter', increment);
    })();
    expect(await Promise.all([...exits, local])).toEqual([0, 0, undefined]);
    expect(await createFileStorage(path).get('counter')).toBe('75');
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('waits for a lock file held by a live process and breaks one whose owner is gone', async () => {
    const path = join(directory, 'locked.json');
    const storage = createFileStorage(path);
    await storage.set('counter', '1');
    writeFileSync(`${path}.lock`, String(process.ppid));
    let done = false;
    const waiting = storage.update('counter', increment).then(() => (done = true));
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(done).toBe(false);
    rmSync(`${path}.lock`);
    await waiting;
    expect(await storage.get('counter')).toBe('2');

    // A process that has exited.
    const exited = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    await new Promise((resolve) => exited.once('exit', resolve));
    writeFileSync(`${path}.lock`, String(exited.pid));
    await storage.update('counter', increment);
    // A live owner that has held it far too long.
    writeFileSync(`${path}.lock`, String(process.ppid));
    const longAgo = new Date(Date.now() - 10 * 60_000);
    utimesSync(`${path}.lock`, longAgo, longAgo);
    await storage.update('counter', increment);
    expect(await storage.get('counter')).toBe('4');
    expect(existsSync(`${path}.lock`)).toBe(false);
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

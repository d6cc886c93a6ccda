import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { ClientStorage, StorageChange } from '../storage/client-storage.js';
import { inTurn } from '../storage/in-turn.js';

// Changes to one file (whole read-modify-write cycles, not only the writes) are serialised per
// process by resolved path, across every storage object opened on it, so a client restarted
// while the old one is still finishing cannot interleave with it. Other processes are kept out
// by a lock file beside the storage file.
const writeChains = new Map<string, Promise<unknown>>();

// A lock file whose owner is gone, or this old, was left by a process that died holding it: a
// change holds the lock for one read and one fsync'd write, milliseconds.
const staleLockMs = 30_000;
const lockRetryMaxMs = 50;

// A temporary file this old is left over from a process killed mid-write, not one in progress.
const staleTemporaryMs = 60_000;

/**
 * Keeps state in one JSON file. Every change writes a temporary file beside it, flushes it to
 * disk and renames it over the old one, so a crash or power loss leaves either the previous
 * or the new content, never a truncated file. The file is read on every access, so a new
 * client on the same file sees exactly what the previous one left.
 */
export function createFileStorage(filePath: string): ClientStorage {
  const path = resolve(filePath);
  let leftoversRemoved = false;

  async function readAll(): Promise<Record<string, string>> {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw error;
    }
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new Error(`${path} is not a game client storage file`);
    }
    return parsed as Record<string, string>;
  }

  // Runs only under the lock file, whose creation made sure the directory exists.
  async function writeAll(values: Record<string, string>): Promise<void> {
    if (!leftoversRemoved) {
      leftoversRemoved = true;
      await removeStaleTemporaries(path);
    }
    const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      const handle = await open(temporary, 'w', 0o600);
      try {
        await handle.writeFile(JSON.stringify(values));
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, path);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    await syncDirectory(dirname(path));
  }

  /** Runs `task` after every earlier change to this file in this process, holding the lock file. */
  function exclusive<T>(task: () => Promise<T>): Promise<T> {
    return inTurn(writeChains, path, () => withLockFile(path, task));
  }

  const storage: ClientStorage = {
    async get(key) {
      await (writeChains.get(path) ?? Promise.resolve()).catch(() => undefined);
      const values = await readAll();
      return Object.hasOwn(values, key) ? values[key] : undefined;
    },
    set(key, value) {
      return storage.update(key, () => ({ value, result: undefined }));
    },
    delete(key) {
      return storage.update(key, () => ({ value: undefined, result: undefined }));
    },
    update<Result>(key: string, apply: (current: string | undefined) => StorageChange<Result>): Promise<Result> {
      return exclusive(async () => {
        const values = await readAll();
        const current = Object.hasOwn(values, key) ? values[key] : undefined;
        const { value, result } = apply(current);
        if (value !== current) {
          if (value === undefined) delete values[key];
          else values[key] = value;
          await writeAll(values);
        }
        return result;
      });
    },
  };
  return storage;
}

/**
 * Runs `task` holding `<path>.lock`, created exclusively (O_EXCL) so that one process at a time
 * changes the file. A lock whose owning process is gone, or older than `staleLockMs`, is broken.
 */
async function withLockFile<T>(path: string, task: () => Promise<T>): Promise<T> {
  const lockPath = `${path}.lock`;
  for (let attempt = 0; ; attempt += 1) {
    try {
      const handle = await open(lockPath, 'wx', 0o600);
      try {
        await handle.writeFile(String(process.pid));
      } finally {
        await handle.close();
      }
      break;
    } catch (error) {
      const { code } = error as NodeJS.ErrnoException;
      // The first change to a file in a directory not made yet.
      if (code === 'ENOENT') {
        await mkdir(dirname(path), { recursive: true });
        continue;
      }
      if (code !== 'EEXIST') throw error;
      if (await isStaleLock(lockPath)) {
        await rm(lockPath, { force: true });
        continue;
      }
      await sleep(Math.min(lockRetryMaxMs, 2 ** Math.min(attempt, 6)) * (0.5 + Math.random() / 2));
    }
  }
  try {
    return await task();
  } finally {
    await rm(lockPath, { force: true });
  }
}

async function isStaleLock(lockPath: string): Promise<boolean> {
  let text: string;
  let mtimeMs: number;
  try {
    [text, { mtimeMs }] = await Promise.all([readFile(lockPath, 'utf8'), stat(lockPath)]);
  } catch (error) {
    // Released meanwhile: not stale, simply try again.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  if (Date.now() - mtimeMs > staleLockMs) return true;
  const pid = Number(text);
  // Empty while its owner is still writing its pid: only age can make it stale.
  if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** Deletes temporary files that crashed writers left beside the storage file. */
async function removeStaleTemporaries(path: string): Promise<void> {
  const directory = dirname(path);
  const prefix = `${basename(path)}.`;
  for (const name of await readdir(directory)) {
    if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue;
    const candidate = join(directory, name);
    const { mtimeMs } = await stat(candidate).catch(() => ({ mtimeMs: Date.now() }));
    if (Date.now() - mtimeMs > staleTemporaryMs) await rm(candidate, { force: true });
  }
}

/** Makes the rename itself durable; directories cannot be opened for sync on Windows. */
async function syncDirectory(directory: string): Promise<void> {
  let handle;
  try {
    handle = await open(directory, 'r');
    await handle.sync();
  } catch {
    // Not supported on this platform: the rename is still atomic, only its durability is weaker.
  } finally {
    await handle?.close();
  }
}

import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { ClientStorage } from '../storage/client-storage.js';

// Writes to one file are serialised per process, across every storage object opened on it, so
// a client restarted while the old one is still finishing cannot interleave read-modify-writes.
const writeChains = new Map<string, Promise<unknown>>();

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

  async function writeAll(values: Record<string, string>): Promise<void> {
    await mkdir(dirname(path), { recursive: true });
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

  function change(apply: (values: Record<string, string>) => boolean): Promise<void> {
    const previous = writeChains.get(path) ?? Promise.resolve();
    const next = previous
      .catch(() => undefined)
      .then(async () => {
        const values = await readAll();
        if (apply(values)) await writeAll(values);
      });
    writeChains.set(path, next);
    void next.finally(() => {
      if (writeChains.get(path) === next) writeChains.delete(path);
    }).catch(() => undefined);
    return next;
  }

  return {
    async get(key) {
      await (writeChains.get(path) ?? Promise.resolve()).catch(() => undefined);
      const values = await readAll();
      return Object.hasOwn(values, key) ? values[key] : undefined;
    },
    set(key, value) {
      return change((values) => {
        if (values[key] === value) return false;
        values[key] = value;
        return true;
      });
    },
    delete(key) {
      return change((values) => {
        if (!Object.hasOwn(values, key)) return false;
        delete values[key];
        return true;
      });
    },
  };
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

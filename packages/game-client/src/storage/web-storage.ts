import type { ClientStorage } from './client-storage.js';
import { withWebLock } from './web-locks.js';

/** The part of the browser's `Storage` (localStorage) the library uses. */
export interface WebStorageLike {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export const defaultWebStorageKeyPrefix = 'playstack:';

/**
 * Keeps state in the browser's localStorage (or any `Storage`). Each `setItem` replaces one key
 * as a whole, which gives the atomicity the queue needs. A full storage quota makes `set` reject,
 * so `submitRun` reports that the run was not queued instead of losing it silently.
 *
 * `update` reads and writes with no await in between, so it is atomic against every other
 * wrapper of the same Storage in this page (two games, two clients); where `navigator.locks`
 * exists it also holds a Web Lock named after the key, which covers other tabs of the origin.
 */
export function createWebStorage(
  storage: WebStorageLike | undefined = (globalThis as { localStorage?: WebStorageLike }).localStorage,
  keyPrefix = defaultWebStorageKeyPrefix,
): ClientStorage {
  if (!storage) throw new Error('createWebStorage: no localStorage in this environment; pass a Storage explicitly');
  return {
    async get(key) {
      return storage.getItem(keyPrefix + key) ?? undefined;
    },
    async set(key, value) {
      storage.setItem(keyPrefix + key, value);
    },
    async delete(key) {
      storage.removeItem(keyPrefix + key);
    },
    update(key, change) {
      return withWebLock(`playstack-game-client:storage:${keyPrefix}${key}`, () => {
        const current = storage.getItem(keyPrefix + key) ?? undefined;
        const { value, result } = change(current);
        if (value === undefined) {
          if (current !== undefined) storage.removeItem(keyPrefix + key);
        } else if (value !== current) {
          storage.setItem(keyPrefix + key, value);
        }
        return result;
      });
    },
  };
}

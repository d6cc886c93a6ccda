import type { ClientStorage } from './client-storage.js';

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
  };
}

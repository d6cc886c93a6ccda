import type { ClientStorage } from './client-storage.js';

/** Keeps state in memory only: for tests, and games that accept losing the queue on exit. */
export function createMemoryStorage(initial: Iterable<readonly [string, string]> = []): ClientStorage {
  const values = new Map<string, string>(initial);
  return {
    async get(key) {
      return values.get(key);
    },
    async set(key, value) {
      values.set(key, value);
    },
    async delete(key) {
      values.delete(key);
    },
    // Read, change and write happen in one synchronous step, so nothing can come between them.
    async update(key, change) {
      const current = values.get(key);
      const { value, result } = change(current);
      if (value === undefined) values.delete(key);
      else if (value !== current) values.set(key, value);
      return result;
    },
  };
}

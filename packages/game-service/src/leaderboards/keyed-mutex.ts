import type { Awaitable } from '../awaitable.js';

/**
 * Runs work one at a time per key, in call order; different keys run concurrently. Work that
 * finishes at once (returns no promise) while nothing of its key is running runs without a
 * promise: the in-process rank engine's writes, on every accepted run.
 */
export class KeyedMutex {
  readonly #tails = new Map<string, Promise<void>>();

  run<T>(key: string, work: () => Awaitable<T>): Awaitable<T> {
    const previous = this.#tails.get(key);
    if (previous === undefined) {
      const result = work();
      if (!(result instanceof Promise)) return result;
      return this.#holdUntil(key, result);
    }
    return this.#holdUntil(key, previous.then(work));
  }

  /** Keeps `key` taken until `work` settles; later callers of the key chain after it. */
  #holdUntil<T>(key: string, work: Promise<T>): Promise<T> {
    const tail = work.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return work;
  }
}

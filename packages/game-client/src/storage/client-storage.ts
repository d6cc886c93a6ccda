/**
 * Where the library keeps its state (session tokens, the run queue): string values under
 * string keys. Every `set` must be atomic: after a crash the key holds the old or the new value,
 * never a mixture, because a half-written queue would lose runs.
 *
 * Several clients may share one store through separate storage objects (two games on one page,
 * two tabs, a restarted game while the old client is still finishing), so read-modify-write
 * cycles go through `update`, which must be atomic against every other writer of the same
 * store, not only against calls on the same object.
 */
export interface ClientStorage {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
  /**
   * Reads the key, applies `change` (synchronous, it may throw to abort) and stores what it
   * returns, as one atomic step: no other write to the store comes between the read and the
   * write. `value` undefined deletes the key; a `value` identical to `current` writes nothing.
   * Resolves to `result`; rejects with what `change` threw, having written nothing.
   */
  update<Result>(key: string, change: (current: string | undefined) => StorageChange<Result>): Promise<Result>;
}

/** What an `update` stores (undefined: delete the key) and what it hands back to the caller. */
export interface StorageChange<Result> {
  value: string | undefined;
  result: Result;
}

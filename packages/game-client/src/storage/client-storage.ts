/**
 * Where the library keeps its state (session tokens, the run queue): string values under
 * string keys. Every `set` must be atomic: after a crash the key holds the old or the new value,
 * never a mixture, because a half-written queue would lose runs.
 */
export interface ClientStorage {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
}

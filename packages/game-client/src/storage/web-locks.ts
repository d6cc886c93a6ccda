/** The part of the Web Locks API (`navigator.locks`) the library uses. */
interface LockManagerLike {
  request<T>(name: string, callback: () => T | Promise<T>): Promise<T>;
}

/**
 * Runs `task` holding the named Web Lock when the environment has `navigator.locks` (browsers:
 * shared by every tab and worker of the origin), otherwise just runs it.
 */
export function withWebLock<T>(name: string, task: () => T | Promise<T>): Promise<T> {
  const locks = (globalThis as { navigator?: { locks?: LockManagerLike } }).navigator?.locks;
  if (locks && typeof locks.request === 'function') return locks.request(name, task);
  return Promise.resolve().then(task);
}

/**
 * Runs `task` after every earlier task queued under the same key in `chains` (whether those
 * succeeded or failed), forgetting the key once its last task settles.
 */
export function inTurn<T>(chains: Map<string, Promise<unknown>>, key: string, task: () => Promise<T>): Promise<T> {
  const previous = chains.get(key) ?? Promise.resolve();
  const next = previous.catch(() => undefined).then(task);
  chains.set(key, next);
  void next
    .finally(() => {
      if (chains.get(key) === next) chains.delete(key);
    })
    .catch(() => undefined);
  return next;
}

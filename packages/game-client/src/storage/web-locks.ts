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

/** The part of the Web Locks API (`navigator.locks`) the library uses. */
interface LockManagerLike {
  request<T>(name: string, callback: () => T | Promise<T>): Promise<T>;
}

/**
 * Runs `task` holding the named Web Lock when the environment has `navigator.locks` (browsers:
 * shared by every tab and worker of the origin; Node.js 24), otherwise just runs it.
 */
export function withWebLock<T>(name: string, task: () => T | Promise<T>): Promise<T> {
  const locks = (globalThis as { navigator?: { locks?: LockManagerLike } }).navigator?.locks;
  // The lock's callback is async, so a task that throws hands the lock manager a rejected
  // promise, never a synchronous throw: Node.js 24's navigator.locks keeps a lock whose callback
  // threw synchronously, and every later request for that name waited forever.
  if (locks && typeof locks.request === 'function') return locks.request(name, async () => task());
  return Promise.resolve().then(task);
}

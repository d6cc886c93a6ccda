/**
 * A value now, or a promise of one. Hot read paths (the player guard, leaderboard reads) answer
 * from memory at once when they can and only fall back to a promise for I/O: each promise and
 * `await` costs an allocation and a trip through the microtask queue on every request.
 */
export type Awaitable<T> = T | Promise<T>;

/** `then` applied now to a value, or when a promise settles: no promise unless one is needed. */
export function andThen<T, R>(value: Awaitable<T>, then: (value: T) => Awaitable<R>): Awaitable<R> {
  return value instanceof Promise ? value.then(then) : then(value);
}

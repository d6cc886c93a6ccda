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

/**
 * Work written once for both kinds of store, as a generator that `yield*`s `awaited(...)` where
 * it needs a value that may be a promise (a statement's rows): `runFlow` runs it without a single
 * promise while every value is at hand (SQLite's statements in the group commit answer at once),
 * and through promises from the first one on (PostgreSQL). An `async` function would pay a
 * promise and a trip through the microtask queue per `await` in both cases, and on Node.js 20,
 * while a traced request is in flight, a run through the async hooks for each.
 */
export type Flow<R> = Generator<Awaitable<unknown>, R, unknown>;

/** Inside a `Flow`: `const rows = yield* awaited(query)` is the value, or the promise's value once settled. */
export function* awaited<T>(value: Awaitable<T>): Generator<Awaitable<T>, T, unknown> {
  return (yield value) as T;
}

/**
 * Runs a flow: at once (its value, or its throw) while it yields plain values; from its first
 * promise on, a promise of its value. A rejection is thrown into the flow where it waited.
 */
export function runFlow<R>(flow: Flow<R>): Awaitable<R> {
  let step = flow.next();
  while (!step.done) {
    if (step.value instanceof Promise) return finishFlow(flow, step.value);
    step = flow.next(step.value);
  }
  return step.value;
}

async function finishFlow<R>(flow: Flow<R>, pending: Promise<unknown>): Promise<R> {
  let step: IteratorResult<Awaitable<unknown>, R> = { done: false, value: pending };
  while (!step.done) {
    let settled: unknown;
    try {
      settled = step.value instanceof Promise ? await step.value : step.value;
    } catch (error) {
      step = flow.throw(error);
      continue;
    }
    step = flow.next(settled);
  }
  return step.value;
}

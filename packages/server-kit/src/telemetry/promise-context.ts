import { promiseHooks } from 'node:v8';
import { ROOT_CONTEXT, type Context, type ContextManager } from '@opentelemetry/api';

/**
 * Whether this process's `AsyncLocalStorage` carries its stores in the async context frame, without
 * async hooks: Node.js 24 and later unless `--no-async-context-frame`, 22.7-23 with
 * `--experimental-async-context-frame`; never before.
 */
export function asyncContextFrameInUse(
  version: string = process.versions.node,
  flags: readonly string[] = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)],
): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  if (major >= 24) return !flags.includes('--no-async-context-frame');
  if (major > 22 || (major === 22 && minor >= 7)) return flags.includes('--experimental-async-context-frame');
  return false;
}

const carried = Symbol('playstack.otel-context');
type Carrier = { [carried]?: Context };

/**
 * A context manager for the Node.js versions whose `AsyncLocalStorage` runs on async hooks (20, and
 * 22 without the async context frame): the active context follows promises only, through V8's
 * promise hooks, without the async hooks' bookkeeping (an async id and a trigger id stored on
 * every promise, the async id stack pushed and popped around every reaction). With it engaged a
 * promise-heavy loop costs about half what it costs with an `AsyncLocalStorage` engaged (still
 * more than with none: V8 takes slower paths while any promise hook is on). A promise created
 * in a context carries it (stored only when the context is not the root, so the promises of
 * untraced work get no property), and each of its reactions (`then` callbacks, an `await`'s
 * continuation) runs in it.
 *
 * Unlike `AsyncLocalStorage`, callbacks that are not promise reactions (timers, emitters, I/O,
 * `process.nextTick`, an `AsyncResource`'s scope) run in the root context: whoever hands work to
 * one re-enters the context it needs (the request spans do, after a body's reading and when the
 * response has been sent). Hooks are on from `enable()`, or the first `with` a context other than
 * the root, until `disable()`.
 */
export class PromiseContextManager implements ContextManager {
  readonly active: () => Context;
  readonly with: ContextManager['with'];
  readonly enable: () => this;
  readonly disable: () => this;

  constructor() {
    let current: Context = ROOT_CONTEXT;
    // The context a running reaction interrupted (reactions never nest); undefined outside one.
    let interrupted: Context | undefined;
    let stop: (() => void) | undefined;
    const hooks = {
      init(promise: Promise<unknown>) {
        if (current !== ROOT_CONTEXT) (promise as Carrier)[carried] = current;
      },
      before(promise: Promise<unknown>) {
        interrupted = current;
        current = (promise as Carrier)[carried] ?? ROOT_CONTEXT;
      },
      after() {
        // Hooks enabled inside a reaction see its `after` without its `before`: nothing to restore.
        if (interrupted === undefined) return;
        current = interrupted;
        interrupted = undefined;
      },
    };
    this.active = () => current;
    this.with = (context, fn, thisArg, ...args) => {
      // As `AsyncLocalStorage` engages itself on its first run: a context entered is carried.
      if (stop === undefined && context !== ROOT_CONTEXT) this.enable();
      const previous = current;
      current = context;
      try {
        return fn.call(thisArg, ...args);
      } finally {
        current = previous;
      }
    };
    this.enable = () => {
      stop ??= promiseHooks.createHook(hooks) as () => void;
      return this;
    };
    this.disable = () => {
      stop?.();
      stop = undefined;
      current = ROOT_CONTEXT;
      interrupted = undefined;
      return this;
    };
  }

  /** `target` run in `context` when it is a function; anything else (an emitter) is returned as it is. */
  bind<T>(context: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const run: Function = target;
    const withContext = this.with;
    const bound = function (this: unknown, ...args: unknown[]): unknown {
      return withContext(context, () => Reflect.apply(run, this, args));
    };
    // A function of the same parameters and result as `target`.
    return bound as T;
  }
}

import { setImmediate as nextTurn } from 'node:timers/promises';
import { createContextKey, ROOT_CONTEXT, type Context } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { asyncContextFrameInUse, PromiseContextManager } from '../src/telemetry/promise-context.js';

const key = createContextKey('promise-context-test');
const named = (name: string): Context => ROOT_CONTEXT.setValue(key, name);

describe('asyncContextFrameInUse', () => {
  it('is Node.js 24 and later unless turned off, 22.7-23 with the flag, never before', () => {
    expect(asyncContextFrameInUse('20.20.2', [])).toBe(false);
    expect(asyncContextFrameInUse('20.20.2', ['--experimental-async-context-frame'])).toBe(false);
    expect(asyncContextFrameInUse('22.6.0', ['--experimental-async-context-frame'])).toBe(false);
    expect(asyncContextFrameInUse('22.23.0', [])).toBe(false);
    expect(asyncContextFrameInUse('22.23.0', ['--experimental-async-context-frame'])).toBe(true);
    expect(asyncContextFrameInUse('23.11.0', ['--experimental-async-context-frame'])).toBe(true);
    expect(asyncContextFrameInUse('24.11.1', [])).toBe(true);
    expect(asyncContextFrameInUse('24.11.1', ['--no-async-context-frame'])).toBe(false);
  });
});

describe('PromiseContextManager', () => {
  const manager = new PromiseContextManager();
  afterEach(() => {
    manager.disable();
  });
  const seen = () => manager.active().getValue(key);

  it('carries a context across awaits and promise reactions, each task its own, and restores the outer one', async () => {
    manager.enable();
    const task = (name: string) =>
      manager.with(named(name), async () => {
        const steps: unknown[] = [seen()];
        await null;
        steps.push(seen());
        await nextTurn();
        steps.push(seen());
        steps.push(await Promise.resolve().then(() => seen()));
        // A context entered inside another is the inner one's until it returns.
        steps.push(await manager.with(named(`${name}-inner`), async () => {
          await null;
          return seen();
        }));
        steps.push(seen());
        return steps;
      });
    // Interleaved: the two tasks' continuations alternate, each in its own context.
    const [a, b] = await Promise.all([task('a'), task('b')]);
    expect(a).toEqual(['a', 'a', 'a', 'a', 'a-inner', 'a']);
    expect(b).toEqual(['b', 'b', 'b', 'b', 'b-inner', 'b']);
    expect(seen()).toBeUndefined();
  });

  it('runs callbacks that are not promise reactions (timers, immediates, ticks) in the root context', async () => {
    manager.enable();
    const inCallbacks = await manager.with(named('request'), () =>
      Promise.all([
        new Promise((resolve) => setTimeout(() => resolve(seen()), 1)),
        new Promise((resolve) => setImmediate(() => resolve(seen()))),
        new Promise((resolve) => process.nextTick(() => resolve(seen()))),
      ]),
    );
    expect(inCallbacks).toEqual([undefined, undefined, undefined]);
  });

  it('is engaged by the first context entered (as AsyncLocalStorage), and carries nothing once disabled', async () => {
    const before = await manager.with(named('first'), async () => {
      await null;
      return seen();
    });
    expect(before).toBe('first');
    let pending!: Promise<unknown>;
    manager.with(named('cut'), () => {
      pending = Promise.resolve().then(() => seen());
      manager.disable();
    });
    expect(await pending).toBeUndefined();
    expect(seen()).toBeUndefined();
  });

  it('adds nothing to the promises made outside any context', async () => {
    manager.enable();
    const plain = Promise.resolve(1);
    const traced = manager.with(named('traced'), () => Promise.resolve(2));
    expect(Object.getOwnPropertySymbols(plain)).toEqual([]);
    expect(Object.getOwnPropertySymbols(traced)).toHaveLength(1);
    await Promise.all([plain, traced]);
  });

  it('binds a function to a context; anything else is returned as it is', async () => {
    manager.enable();
    const bound = manager.bind(named('bound'), function (this: { tag: string }, suffix: string) {
      return `${this.tag}:${String(seen())}:${suffix}`;
    });
    expect(bound.call({ tag: 't' }, 'x')).toBe('t:bound:x');
    const emitter = { on: () => undefined };
    expect(manager.bind(named('bound'), emitter)).toBe(emitter);
  });
});

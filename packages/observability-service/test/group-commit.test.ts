import { describe, expect, it } from 'vitest';
import { GroupCommit } from '../src/storage/group-commit.js';

/** A commit that holds until released, recording the groups it was given and how many ran at once. */
function gatedCommits(fail: (item: number) => boolean = () => false) {
  const groups: number[][] = [];
  const gates: Array<() => void> = [];
  let running = 0;
  let mostAtOnce = 0;
  const commit = async (items: readonly number[]) => {
    running++;
    mostAtOnce = Math.max(mostAtOnce, running);
    groups.push([...items]);
    await new Promise<void>((release) => gates.push(release));
    running--;
    if (items.some(fail)) throw new Error(`refused ${items.filter(fail).join(',')}`);
  };
  /** Releases every commit, those started meanwhile too, until none runs or waits to start. */
  const releaseAll = async () => {
    do {
      await new Promise<void>((turn) => setImmediate(turn));
      gates.splice(0).forEach((release) => release());
      await new Promise<void>((turn) => setImmediate(turn));
    } while (gates.length > 0 || running > 0);
  };
  return { commit, groups, gates, releaseAll, mostAtOnce: () => mostAtOnce };
}

const nextTurn = () => new Promise<void>((turn) => setImmediate(turn));

describe('GroupCommit', () => {
  it('runs one commit at a time by default: items arriving meanwhile wait and go together in the next', async () => {
    const gated = gatedCommits();
    const commits = new GroupCommit<number>({ commit: gated.commit, size: () => 1, maxGroupSize: 100 });
    const first = commits.submit(1);
    await nextTurn();
    const later = [2, 3, 4].map((item) => commits.submit(item));
    await nextTurn();
    expect(gated.groups).toEqual([[1]]);
    await gated.releaseAll();
    await Promise.all([first, ...later]);
    expect(gated.groups).toEqual([[1], [2, 3, 4]]);
    expect(gated.mostAtOnce()).toBe(1);
  });

  it('runs up to maxConcurrentCommits at once, each item acknowledged only when its own commit ends', async () => {
    const gated = gatedCommits();
    const commits = new GroupCommit<number>({ commit: gated.commit, size: () => 1, maxGroupSize: 100, maxConcurrentCommits: 2 });
    const settled = new Set<number>();
    const submit = (item: number) => commits.submit(item).then(() => settled.add(item));
    const first = submit(1);
    await nextTurn();
    const second = [2, 3].map(submit);
    await nextTurn();
    const third = [4, 5].map(submit);
    await nextTurn();
    // Two commits run; the third group waits for a slot.
    expect(gated.groups).toEqual([[1], [2, 3]]);
    expect(settled.size).toBe(0);
    gated.gates.shift()!();
    await first;
    expect([...settled]).toEqual([1]);
    await nextTurn();
    expect(gated.groups).toEqual([[1], [2, 3], [4, 5]]);
    await gated.releaseAll();
    await Promise.all([...second, ...third]);
    expect(gated.mostAtOnce()).toBe(2);
  });

  it('with concurrent commits, a failing item fails alone and idle() waits for every commit', async () => {
    const gated = gatedCommits((item) => item === 3);
    const commits = new GroupCommit<number>({ commit: gated.commit, size: () => 1, maxGroupSize: 100, maxConcurrentCommits: 2 });
    const outcomes = new Map<number, string>();
    const submit = (item: number) =>
      commits.submit(item).then(
        () => outcomes.set(item, 'stored'),
        (error: Error) => outcomes.set(item, error.message),
      );
    const all = [submit(1)];
    await nextTurn();
    all.push(submit(2), submit(3), submit(4));
    await nextTurn();
    const idle = commits.idle().then(() => 'idle');
    const release = gated.releaseAll();
    expect(await idle).toBe('idle');
    await release;
    await Promise.all(all);
    expect(Object.fromEntries(outcomes)).toEqual({ 1: 'stored', 2: 'stored', 3: 'refused 3', 4: 'stored' });
    // The shared group failed, then each of its items went alone.
    expect(gated.groups).toEqual([[1], [2, 3, 4], [2], [3], [4]]);
  });

  it('respects maxGroupSize across concurrent drains', async () => {
    const gated = gatedCommits();
    const commits = new GroupCommit<number>({ commit: gated.commit, size: (item) => item, maxGroupSize: 10, maxConcurrentCommits: 2 });
    const all = [6, 4, 7, 3, 5].map((item) => commits.submit(item));
    await gated.releaseAll();
    await Promise.all(all);
    expect(gated.groups).toEqual([[6, 4], [7, 3], [5]]);
    for (const group of gated.groups) expect(group.reduce((sum, item) => sum + item, 0)).toBeLessThanOrEqual(10);
  });
});

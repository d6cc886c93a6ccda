export interface GroupCommitOptions<T> {
  /** Stores items together (one transaction or insert); rejects when nothing of them was kept. */
  commit: (items: readonly T[]) => Promise<void>;
  /** How much of a group an item takes (rows). */
  size: (item: T) => number;
  /** A group holds at most this much (one item alone may exceed it). */
  maxGroupSize: number;
}

interface Pending<T> {
  item: T;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: items submitted while a commit is running wait and are stored together by the
 * next one. `submit` resolves only after the commit holding its item has succeeded. When a shared
 * commit fails, each item in it is retried alone, so one bad item cannot fail its neighbours.
 */
export class GroupCommit<T> {
  readonly #options: GroupCommitOptions<T>;
  #queue: Array<Pending<T>> = [];
  #draining: Promise<void> | undefined;

  constructor(options: GroupCommitOptions<T>) {
    this.#options = options;
  }

  submit(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      // Starting on the next turn lets items parsed in the same I/O phase join this commit.
      this.#draining ??= new Promise<void>((started) => setImmediate(started)).then(() => this.#drain());
    });
  }

  /** Resolves when every item submitted so far has settled. */
  async idle(): Promise<void> {
    while (this.#draining) await this.#draining;
  }

  async #drain(): Promise<void> {
    const { size, maxGroupSize } = this.#options;
    try {
      while (this.#queue.length > 0) {
        const group: Array<Pending<T>> = [];
        let total = 0;
        while (this.#queue.length > 0 && (group.length === 0 || total + size(this.#queue[0]!.item) <= maxGroupSize)) {
          const next = this.#queue.shift()!;
          group.push(next);
          total += size(next.item);
        }
        await this.#commitGroup(group);
      }
    } finally {
      this.#draining = undefined;
    }
  }

  async #commitGroup(group: Array<Pending<T>>): Promise<void> {
    const { commit } = this.#options;
    try {
      await commit(group.map((pending) => pending.item));
      for (const pending of group) pending.resolve();
    } catch (error) {
      if (group.length === 1) {
        group[0]!.reject(error);
        return;
      }
      for (const pending of group) {
        try {
          await commit([pending.item]);
          pending.resolve();
        } catch (alone) {
          pending.reject(alone);
        }
      }
    }
  }
}

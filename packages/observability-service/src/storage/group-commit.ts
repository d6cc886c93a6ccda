export interface GroupCommitOptions<T> {
  /** Stores items together (one transaction or insert); rejects when nothing of them was kept. */
  commit: (items: readonly T[]) => Promise<void>;
  /** How much of a group an item takes (rows). */
  size: (item: T) => number;
  /** A group holds at most this much (one item alone may exceed it). */
  maxGroupSize: number;
  /**
   * Commits running at once (default 1). More lets a store that takes concurrent writes (ClickHouse
   * inserts) keep every core busy; a group starts when a commit slot is free, so with more slots
   * groups are smaller under the same load.
   */
  maxConcurrentCommits?: number;
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
 * Up to `maxConcurrentCommits` drains run at once, each taking the next group when its commit ends.
 */
export class GroupCommit<T> {
  readonly #options: GroupCommitOptions<T>;
  readonly #maxDrains: number;
  #queue: Array<Pending<T>> = [];
  readonly #drains = new Set<Promise<void>>();
  /** A drain is about to start (on the next turn). */
  #starting = false;

  constructor(options: GroupCommitOptions<T>) {
    this.#options = options;
    this.#maxDrains = Math.max(1, options.maxConcurrentCommits ?? 1);
  }

  submit(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      this.#startDrain();
    });
  }

  /** Resolves when every item submitted so far has settled. */
  async idle(): Promise<void> {
    while (this.#starting || this.#drains.size > 0) {
      if (this.#drains.size > 0) await Promise.all(this.#drains);
      else await new Promise<void>((turn) => setImmediate(turn));
    }
  }

  #startDrain(): void {
    if (this.#starting || this.#drains.size >= this.#maxDrains) return;
    this.#starting = true;
    // Starting on the next turn lets items parsed in the same I/O phase join this commit.
    setImmediate(() => {
      this.#starting = false;
      if (this.#queue.length === 0 || this.#drains.size >= this.#maxDrains) return;
      const drain = this.#drain().finally(() => {
        this.#drains.delete(drain);
        if (this.#queue.length > 0) this.#startDrain();
      });
      this.#drains.add(drain);
      // Items queued while this drain starts may start the next one, up to the limit.
      if (this.#queue.length > 0) this.#startDrain();
    });
  }

  async #drain(): Promise<void> {
    const { size, maxGroupSize } = this.#options;
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

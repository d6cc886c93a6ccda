import { compareRankKeys, type RankKey } from './rank-order.js';

const maxLevel = 32;
const levelProbability = 0.25;

/**
 * A node holds its key and, per level, the next node and the span: how many positions that
 * link advances. A missing next node's span counts the nodes after this one (Redis's convention),
 * which keeps the insert and delete arithmetic uniform. Links and spans share one array
 * (`[next0, span0, next1, span1, ...]`): one allocation per node instead of two, which is most
 * of the engine's memory at a million entries.
 */
class SkipNode implements RankKey {
  readonly links: Array<SkipNode | number | null>;
  constructor(
    readonly sortScore: number,
    readonly achievedAt: number,
    readonly playerId: string,
    level: number,
  ) {
    this.links = new Array<SkipNode | number | null>(level * 2);
    for (let i = 0; i < level; i++) {
      this.links[i * 2] = null;
      this.links[i * 2 + 1] = 0;
    }
  }

  next(level: number): SkipNode | null {
    return this.links[level * 2] as SkipNode | null;
  }

  setNext(level: number, node: SkipNode | null): void {
    this.links[level * 2] = node;
  }

  span(level: number): number {
    return this.links[level * 2 + 1] as number;
  }

  setSpan(level: number, span: number): void {
    this.links[level * 2 + 1] = span;
  }
}

function randomLevel(): number {
  let level = 1;
  while (level < maxLevel && Math.random() < levelProbability) level += 1;
  return level;
}

/**
 * An order-statistic skip list of rank keys (one per player), after Redis's zset: insert,
 * delete, rank-of-player and entry-at-rank are O(log n) expected. Ranks are 1-based.
 */
export class RankSkipList {
  #head = new SkipNode(0, 0, '', maxLevel);
  #level = 1;
  readonly #byPlayer = new Map<string, SkipNode>();

  get size(): number {
    return this.#byPlayer.size;
  }

  /** Builds the list from keys already in rank order in O(n); throws if they are not. */
  static fromSorted(keys: Iterable<RankKey>): RankSkipList {
    const list = new RankSkipList();
    const last: SkipNode[] = new Array<SkipNode>(maxLevel).fill(list.#head);
    const lastRank: number[] = new Array<number>(maxLevel).fill(0);
    let previous: RankKey | undefined;
    let rank = 0;
    for (const key of keys) {
      if (previous && compareRankKeys(previous, key) >= 0) throw new Error('fromSorted needs keys in strictly increasing rank order');
      if (list.#byPlayer.has(key.playerId)) throw new Error(`player ${key.playerId} appears twice`);
      rank += 1;
      const level = randomLevel();
      const node = new SkipNode(key.sortScore, key.achievedAt, key.playerId, level);
      for (let i = 0; i < level; i++) {
        last[i]!.setNext(i, node);
        last[i]!.setSpan(i, rank - lastRank[i]!);
        last[i] = node;
        lastRank[i] = rank;
      }
      if (level > list.#level) list.#level = level;
      list.#byPlayer.set(key.playerId, node);
      previous = key;
    }
    for (let i = 0; i < list.#level; i++) last[i]!.setSpan(i, rank - lastRank[i]!);
    return list;
  }

  /** Sets a player's key (inserting, or moving an existing entry). */
  upsert(key: RankKey): void {
    const existing = this.#byPlayer.get(key.playerId);
    if (existing) {
      if (compareRankKeys(existing, key) === 0) return;
      this.#unlink(existing);
      this.#byPlayer.delete(key.playerId);
    }
    this.#byPlayer.set(key.playerId, this.#insert(key));
  }

  /** Removes a player's entry; false when there was none. */
  remove(playerId: string): boolean {
    const node = this.#byPlayer.get(playerId);
    if (!node) return false;
    this.#unlink(node);
    this.#byPlayer.delete(playerId);
    return true;
  }

  /** The player's key, or undefined. */
  keyOf(playerId: string): RankKey | undefined {
    return this.#byPlayer.get(playerId);
  }

  /** The player's 1-based rank, or undefined when absent. */
  rankOf(playerId: string): number | undefined {
    const target = this.#byPlayer.get(playerId);
    if (!target) return undefined;
    let node = this.#head;
    let rank = 0;
    for (let i = this.#level - 1; i >= 0; i--) {
      let next = node.next(i);
      while (next && compareRankKeys(next, target) <= 0) {
        rank += node.span(i);
        node = next;
        next = node.next(i);
      }
      if (node === target) return rank;
    }
    return undefined;
  }

  /** Up to `count` player ids starting at 1-based `fromRank`, in rank order. */
  playersFrom(fromRank: number, count: number): string[] {
    const out: string[] = [];
    let node = this.#nodeAt(Math.max(1, fromRank));
    while (node && out.length < count) {
      out.push(node.playerId);
      node = node.next(0);
    }
    return out;
  }

  #nodeAt(rank: number): SkipNode | null {
    if (rank > this.size) return null;
    let node = this.#head;
    let traversed = 0;
    for (let i = this.#level - 1; i >= 0; i--) {
      let next = node.next(i);
      while (next && traversed + node.span(i) <= rank) {
        traversed += node.span(i);
        node = next;
        next = node.next(i);
      }
      if (traversed === rank) return node;
    }
    return null;
  }

  #insert(key: RankKey): SkipNode {
    const update: SkipNode[] = new Array<SkipNode>(maxLevel);
    const rank: number[] = new Array<number>(maxLevel);
    let node = this.#head;
    for (let i = this.#level - 1; i >= 0; i--) {
      rank[i] = i === this.#level - 1 ? 0 : rank[i + 1]!;
      let next = node.next(i);
      while (next && compareRankKeys(next, key) < 0) {
        rank[i]! += node.span(i);
        node = next;
        next = node.next(i);
      }
      update[i] = node;
    }
    const level = randomLevel();
    if (level > this.#level) {
      for (let i = this.#level; i < level; i++) {
        rank[i] = 0;
        update[i] = this.#head;
        this.#head.setSpan(i, this.size);
      }
      this.#level = level;
    }
    const created = new SkipNode(key.sortScore, key.achievedAt, key.playerId, level);
    for (let i = 0; i < level; i++) {
      const before = update[i]!;
      created.setNext(i, before.next(i));
      before.setNext(i, created);
      created.setSpan(i, before.span(i) - (rank[0]! - rank[i]!));
      before.setSpan(i, rank[0]! - rank[i]! + 1);
    }
    for (let i = level; i < this.#level; i++) update[i]!.setSpan(i, update[i]!.span(i) + 1);
    return created;
  }

  #unlink(target: SkipNode): void {
    const update: SkipNode[] = new Array<SkipNode>(this.#level);
    let node = this.#head;
    for (let i = this.#level - 1; i >= 0; i--) {
      let next = node.next(i);
      while (next && compareRankKeys(next, target) < 0) {
        node = next;
        next = node.next(i);
      }
      update[i] = node;
    }
    for (let i = 0; i < this.#level; i++) {
      const before = update[i]!;
      if (before.next(i) === target) {
        before.setSpan(i, before.span(i) + target.span(i) - 1);
        before.setNext(i, target.next(i));
      } else {
        before.setSpan(i, before.span(i) - 1);
      }
    }
    while (this.#level > 1 && this.#head.next(this.#level - 1) === null) this.#level -= 1;
  }
}

import { compareRankKeys, type RankItem, type RankKey } from './rank-order.js';

/** `RankTree.fromSorted` was given items out of rank order, or a player twice. */
export class NotInRankOrderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotInRankOrderError';
  }
}

/** Most items in a leaf and children in a branch; a node that outgrows it splits in two. */
const defaultCapacity = 64;

/** One entry as the tree holds it: its item, mutable name, and the leaf it sits in. */
class Slot implements RankItem {
  constructor(
    readonly sortScore: number,
    readonly achievedAt: number,
    readonly playerId: string,
    public displayName: string,
    public leaf: Leaf,
  ) {}
}

class Leaf {
  items: Slot[] = [];
  parent: Branch | null = null;
  next: Leaf | null = null;
  previous: Leaf | null = null;
}

/**
 * `counts[i]` is how many items `children[i]` holds; `keys[i]` (i >= 1) separates children
 * `i - 1` and `i`: every key under `children[i - 1]` is below it, every key under `children[i]`
 * at or above it. Removals keep that true, so separators change only on splits and merges.
 */
class Branch {
  children: Array<Leaf | Branch> = [];
  counts: number[] = [];
  keys: Array<RankKey | undefined> = [];
  parent: Branch | null = null;
}

type TreeNode = Leaf | Branch;

/**
 * The index of the first element of `list` from `from` on that ranks after `key` (the list is
 * in rank order): how many of those elements rank at or before it, plus `from`.
 */
function indexAfter(list: ReadonlyArray<RankKey | undefined>, key: RankKey, from: number): number {
  let low = from;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compareRankKeys(list[middle]!, key) <= 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Up to `count` items in rank order from `leaf.items[at]` on, following the leaf links. */
function readOn(leaf: Leaf, at: number, count: number): RankItem[] {
  const items: RankItem[] = [];
  for (let current: Leaf | null = leaf; current && items.length < count; current = current.next, at = 0) {
    for (let i = at; i < current.items.length && items.length < count; i++) items.push(current.items[i]!);
  }
  return items;
}

function sum(values: readonly number[]): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}

/**
 * An order-statistic B+ tree of rank items (one per player): leaves hold items in rank order,
 * branches the item count of each child. Insert and delete are O(log n); rank-of-player walks
 * from the player's leaf up to the root adding the counts of earlier siblings, and
 * items-at-rank walks down by counts: a few contiguous arrays per level, so a lookup at a
 * million entries touches a handful of cache lines rather than one node per hop.
 */
export class RankTree {
  readonly #capacity: number;
  readonly #byPlayer = new Map<string, Slot>();
  #root: TreeNode = new Leaf();

  /** `capacity` (>= 4): most items per leaf and children per branch; small values are for tests. */
  constructor(capacity = defaultCapacity) {
    if (!Number.isInteger(capacity) || capacity < 4) throw new RangeError('capacity must be an integer of at least 4');
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#byPlayer.size;
  }

  /** Builds the tree from items already in rank order, one per player, in O(n); throws `NotInRankOrderError` if they are not. */
  static fromSorted(items: Iterable<RankItem>, capacity = defaultCapacity): RankTree {
    const tree = new RankTree(capacity);
    // Leaves start three-quarters full, so the first writes after a rebuild rarely split.
    const fill = Math.max(2, Math.floor((capacity * 3) / 4));
    const leaves: Leaf[] = [];
    let previous: RankItem | undefined;
    let leaf = new Leaf();
    for (const item of items) {
      if (previous && compareRankKeys(previous, item) >= 0) throw new NotInRankOrderError('fromSorted needs items in strictly increasing rank order');
      if (tree.#byPlayer.has(item.playerId)) throw new NotInRankOrderError(`player ${item.playerId} appears twice`);
      if (leaf.items.length === fill) {
        leaves.push(leaf);
        const next = new Leaf();
        leaf.next = next;
        next.previous = leaf;
        leaf = next;
      }
      const slot = new Slot(item.sortScore, item.achievedAt, item.playerId, item.displayName, leaf);
      leaf.items.push(slot);
      tree.#byPlayer.set(item.playerId, slot);
      previous = item;
    }
    leaves.push(leaf);
    let level: TreeNode[] = leaves;
    while (level.length > 1) {
      const parents: Branch[] = [];
      for (let start = 0; start < level.length; start += fill) {
        const branch = new Branch();
        for (const child of level.slice(start, start + fill)) tree.#append(branch, child);
        parents.push(branch);
      }
      level = parents;
    }
    tree.#root = level[0]!;
    return tree;
  }

  /** Sets a player's item (inserting, moving or renaming an existing entry). */
  upsert(item: RankItem): void {
    const existing = this.#byPlayer.get(item.playerId);
    if (existing) {
      if (compareRankKeys(existing, item) === 0) {
        existing.displayName = item.displayName;
        return;
      }
      this.#delete(existing);
    }
    this.#insert(item);
  }

  /** Removes a player's entry; false when there was none. */
  remove(playerId: string): boolean {
    const slot = this.#byPlayer.get(playerId);
    if (!slot) return false;
    this.#delete(slot);
    return true;
  }

  /** The player's 1-based rank, or undefined when absent. */
  rankOf(playerId: string): number | undefined {
    const slot = this.#byPlayer.get(playerId);
    return slot && this.#rankOfSlot(slot, slot.leaf.items.indexOf(slot));
  }

  /**
   * The player's rank and the items from up to `radius` before theirs to up to `radius` after
   * (theirs included), with the rank of the first; undefined when absent. One lookup: the
   * neighbours are read along the leaves from the player's own.
   */
  around(playerId: string, radius: number): { rank: number; firstRank: number; items: RankItem[] } | undefined {
    const slot = this.#byPlayer.get(playerId);
    if (!slot) return undefined;
    const index = slot.leaf.items.indexOf(slot);
    const rank = this.#rankOfSlot(slot, index);
    // Step back up to `radius` items, across leaves.
    let leaf: Leaf = slot.leaf;
    let at = index;
    let before = 0;
    while (before < radius) {
      if (at > 0) {
        const step = Math.min(at, radius - before);
        at -= step;
        before += step;
      } else if (leaf.previous) {
        leaf = leaf.previous;
        at = leaf.items.length;
      } else {
        break;
      }
    }
    return { rank, firstRank: rank - before, items: readOn(leaf, at, before + 1 + radius) };
  }

  /**
   * Up to `count` items ranked after `key`, with the rank of the first. A cursor names an entry;
   * while that entry has not moved it is found by its player and read on from along the leaves,
   * with no search by key. Otherwise the position is found by key.
   */
  itemsAfter(key: RankKey, count: number): { firstRank: number; items: RankItem[] } {
    const slot = this.#byPlayer.get(key.playerId);
    if (slot && compareRankKeys(slot, key) === 0) {
      const index = slot.leaf.items.indexOf(slot);
      return { firstRank: this.#rankOfSlot(slot, index) + 1, items: readOn(slot.leaf, index + 1, count) };
    }
    const firstRank = this.countThrough(key) + 1;
    return { firstRank, items: this.itemsFrom(firstRank, count) };
  }

  /** How many items rank at or before `key` (whether or not an item has exactly that key). */
  countThrough(key: RankKey): number {
    let count = 0;
    let node = this.#root;
    while (node instanceof Branch) {
      const child = this.#childFor(node, key);
      for (let i = 0; i < child; i++) count += node.counts[i]!;
      node = node.children[child]!;
    }
    return count + indexAfter(node.items, key, 0);
  }

  /** Up to `count` items starting at 1-based `fromRank`, in rank order. */
  itemsFrom(fromRank: number, count: number): RankItem[] {
    let offset = Math.max(1, fromRank) - 1;
    if (offset >= this.size || count <= 0) return [];
    let node = this.#root;
    while (node instanceof Branch) {
      let i = 0;
      while (offset >= node.counts[i]!) offset -= node.counts[i++]!;
      node = node.children[i]!;
    }
    return readOn(node, offset, count);
  }

  /** Throws unless every count, separator, parent and sibling link is right (for tests). */
  verifyStructure(): void {
    const leaves: Leaf[] = [];
    const check = (node: TreeNode, parent: Branch | null, low: RankKey | undefined, high: RankKey | undefined): number => {
      if (node.parent !== parent) throw new Error('wrong parent link');
      if (node instanceof Leaf) {
        leaves.push(node);
        if (node.items.length === 0 && node !== this.#root) throw new Error('empty leaf');
        node.items.forEach((slot, i) => {
          if (slot.leaf !== node || this.#byPlayer.get(slot.playerId) !== slot) throw new Error(`slot of ${slot.playerId} misplaced`);
          if (i > 0 && compareRankKeys(node.items[i - 1]!, slot) >= 0) throw new Error('leaf out of order');
          if ((low && compareRankKeys(slot, low) < 0) || (high && compareRankKeys(slot, high) >= 0)) throw new Error('item outside its separators');
        });
        return node.items.length;
      }
      if (node.children.length === 0 || (node.children.length === 1 && node === this.#root)) throw new Error('degenerate branch');
      if (node.keys.length !== node.children.length || node.keys.some((key, i) => i > 0 && key === undefined)) throw new Error('missing separator');
      return sum(
        node.children.map((child, i) => {
          const count = check(child, node, i === 0 ? low : node.keys[i], i + 1 < node.keys.length ? node.keys[i + 1] : high);
          if (node.counts[i] !== count) throw new Error('wrong count');
          return count;
        }),
      );
    };
    if (check(this.#root, null, undefined, undefined) !== this.size) throw new Error('size differs from the items held');
    leaves.forEach((leaf, i) => {
      if (leaf.previous !== (leaves[i - 1] ?? null) || leaf.next !== (leaves[i + 1] ?? null)) throw new Error('wrong leaf links');
    });
  }

  /** The rank of the item at `index` of its leaf: its place there plus every item in earlier subtrees. */
  #rankOfSlot(slot: Slot, index: number): number {
    let rank = index + 1;
    let node: TreeNode = slot.leaf;
    for (let parent = node.parent; parent; node = parent, parent = parent.parent) {
      const counts = parent.counts;
      for (let i = parent.children.indexOf(node) - 1; i >= 0; i--) rank += counts[i]!;
    }
    return rank;
  }

  #insert(item: RankItem): void {
    let node = this.#root;
    while (node instanceof Branch) node = node.children[this.#childFor(node, item)]!;
    const slot = new Slot(item.sortScore, item.achievedAt, item.playerId, item.displayName, node);
    // The player's old slot is gone already and keys are unique: nothing in the leaf equals it.
    node.items.splice(indexAfter(node.items, item, 0), 0, slot);
    this.#byPlayer.set(item.playerId, slot);
    this.#addToCounts(node, 1);
    if (node.items.length > this.#capacity) this.#splitLeaf(node);
  }

  #delete(slot: Slot): void {
    const leaf = slot.leaf;
    leaf.items.splice(leaf.items.indexOf(slot), 1);
    this.#byPlayer.delete(slot.playerId);
    this.#addToCounts(leaf, -1);
    this.#rebalance(leaf);
  }

  /** The child of a branch whose range holds `key`: the number of separators at or below it. */
  #childFor(branch: Branch, key: RankKey): number {
    return indexAfter(branch.keys, key, 1) - 1;
  }

  #addToCounts(node: TreeNode, delta: number): void {
    for (let parent = node.parent; parent; node = parent, parent = parent.parent) parent.counts[parent.children.indexOf(node)]! += delta;
  }

  #append(branch: Branch, child: TreeNode): void {
    branch.keys.push(branch.children.length === 0 ? undefined : firstKey(child));
    branch.children.push(child);
    branch.counts.push(countOf(child));
    child.parent = branch;
  }

  #splitLeaf(leaf: Leaf): void {
    const right = new Leaf();
    right.items = leaf.items.splice(leaf.items.length >>> 1);
    for (const slot of right.items) slot.leaf = right;
    right.next = leaf.next;
    if (right.next) right.next.previous = right;
    right.previous = leaf;
    leaf.next = right;
    this.#insertSibling(leaf, right, right.items[0]!);
  }

  /** Puts `right` after `left` in their parent (a new root when `left` was the root), splitting the parent if full. */
  #insertSibling(left: TreeNode, right: TreeNode, separator: RankKey): void {
    const parent = left.parent;
    if (!parent) {
      const root = new Branch();
      this.#append(root, left);
      this.#append(root, right);
      root.keys[1] = separator;
      this.#root = root;
      return;
    }
    const at = parent.children.indexOf(left) + 1;
    parent.children.splice(at, 0, right);
    parent.keys.splice(at, 0, separator);
    parent.counts[at - 1] = countOf(left);
    parent.counts.splice(at, 0, countOf(right));
    right.parent = parent;
    if (parent.children.length > this.#capacity) this.#splitBranch(parent);
  }

  #splitBranch(branch: Branch): void {
    const half = branch.children.length >>> 1;
    const right = new Branch();
    right.children = branch.children.splice(half);
    right.counts = branch.counts.splice(half);
    right.keys = branch.keys.splice(half);
    const separator = right.keys[0]!;
    right.keys[0] = undefined;
    for (const child of right.children) child.parent = right;
    this.#insertSibling(branch, right, separator);
  }

  /**
   * After a removal: an empty node leaves its parent, and a node merges into an adjacent sibling
   * when the two together fill at most half a node, so nodes stay a quarter full on average
   * however entries move. A root branch with one child gives way to it.
   */
  #rebalance(node: TreeNode): void {
    const parent = node.parent;
    if (!parent) {
      if (node instanceof Branch && node.children.length === 1) {
        this.#root = node.children[0]!;
        this.#root.parent = null;
      }
      return;
    }
    const at = parent.children.indexOf(node);
    if (widthOf(node) === 0) {
      this.#detach(parent, at);
    } else {
      const neighbour = at > 0 ? at - 1 : at + 1;
      if (neighbour >= parent.children.length) return this.#rebalance(parent);
      const [left, right] = neighbour < at ? [neighbour, at] : [at, neighbour];
      if (widthOf(parent.children[left]!) + widthOf(parent.children[right]!) > this.#capacity >>> 1) return;
      this.#merge(parent, left);
    }
    this.#rebalance(parent);
  }

  /** Removes the (empty) child at `at` from its parent, unlinking a leaf from its neighbours. */
  #detach(parent: Branch, at: number): void {
    const [child] = parent.children.splice(at, 1);
    parent.counts.splice(at, 1);
    // keys[0] is never read: when the first child goes, the next one's separator becomes it.
    parent.keys.splice(at, 1);
    if (child instanceof Leaf) unlinkLeaf(child);
  }

  /** Moves everything of `children[left + 1]` into `children[left]`. */
  #merge(parent: Branch, left: number): void {
    const into = parent.children[left]!;
    const from = parent.children[left + 1]!;
    if (into instanceof Leaf && from instanceof Leaf) {
      for (const slot of from.items) slot.leaf = into;
      into.items.push(...from.items);
      unlinkLeaf(from);
    } else if (into instanceof Branch && from instanceof Branch) {
      from.keys[0] = parent.keys[left + 1];
      for (const child of from.children) child.parent = into;
      into.children.push(...from.children);
      into.counts.push(...from.counts);
      into.keys.push(...from.keys);
    }
    parent.counts[left]! += parent.counts[left + 1]!;
    parent.children.splice(left + 1, 1);
    parent.counts.splice(left + 1, 1);
    parent.keys.splice(left + 1, 1);
  }
}

function countOf(node: TreeNode): number {
  return node instanceof Leaf ? node.items.length : sum(node.counts);
}

function widthOf(node: TreeNode): number {
  return node instanceof Leaf ? node.items.length : node.children.length;
}

function firstKey(node: TreeNode): RankKey {
  let first = node;
  while (first instanceof Branch) first = first.children[0]!;
  return first.items[0]!;
}

function unlinkLeaf(leaf: Leaf): void {
  if (leaf.previous) leaf.previous.next = leaf.next;
  if (leaf.next) leaf.next.previous = leaf.previous;
  leaf.previous = null;
  leaf.next = null;
}

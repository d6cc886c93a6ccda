import { packUuid } from './packed-player-ids.js';
import { compareRankKeys, type RankItem, type RankKey } from './rank-order.js';
import { RankTreeEntries } from './rank-tree-entries.js';

/** `RankTree.fromSorted` was given items out of rank order, or a player twice. */
export class NotInRankOrderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotInRankOrderError';
  }
}

/** Most items in a leaf and children in a branch; a node that outgrows it splits in two. */
const defaultCapacity = 64;
/** Leaves whose items share one set of typed arrays (a slab). */
const leavesPerSlab = 256;

/**
 * A leaf: its items in rank order at `base .. base + count` of typed arrays it shares with the
 * other leaves of its slab: sort scores, sort subscores and times as doubles, and entry numbers, by which
 * `RankTreeEntries` keeps each player's id, name and leaf. No object per item. A slab whose items
 * all have subscore 0 (every slab of a board without a subscore) has no subscores array: it is
 * allocated at the first item with another, for the whole slab (`RankTree.#subscoresOf`).
 */
class Leaf {
  count = 0;
  parent: Branch | null = null;
  next: Leaf | null = null;
  previous: Leaf | null = null;
  constructor(
    readonly number: number,
    readonly scores: Float64Array,
    /** Null while every item of the slab has subscore 0. */
    public subscores: Float64Array | null,
    readonly times: Float64Array,
    readonly entries: Int32Array,
    readonly base: number,
  ) {}
}

/** The typed arrays of `leavesPerSlab` leaves, `stride` items each. */
class Slab {
  readonly scores: Float64Array;
  subscores: Float64Array | null = null;
  readonly times: Float64Array;
  readonly entries: Int32Array;
  constructor(stride: number) {
    this.scores = new Float64Array(leavesPerSlab * stride);
    this.times = new Float64Array(leavesPerSlab * stride);
    this.entries = new Int32Array(leavesPerSlab * stride);
  }
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
 * The index of the first separator of `list` from `from` on that ranks after `key` (the list is
 * in rank order): how many of those rank at or before it, plus `from`.
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
 *
 * Items live in typed arrays, not objects: per entry a leaf slot (score, subscore, time, entry
 * number: 28 bytes), the packed player id and leaf number (20 bytes), a 4-byte hash slot and the name.
 * `RankItem` objects are made only for the items a read returns.
 */
export class RankTree {
  readonly #capacity: number;
  /** Items a leaf's region holds: one over capacity, which the split right after an insert takes back. */
  readonly #stride: number;
  readonly #entries: RankTreeEntries;
  readonly #slabs: Slab[] = [];
  readonly #leaves: Array<Leaf | undefined> = [];
  readonly #freeLeaves: number[] = [];
  #root: TreeNode;
  /** The key being placed, its player id packed when it is a UUID. */
  readonly #keyWords = new Uint32Array(4);
  #keyPacked = false;

  /**
   * `capacity` (>= 4): most items per leaf and children per branch; small values are for tests.
   * `expected`: how many entries to make room for at once, and `expectedNameUnits` the UTF-16
   * units of their display names (about their bytes).
   */
  constructor(capacity = defaultCapacity, expected = 0, expectedNameUnits = 0) {
    if (!Number.isInteger(capacity) || capacity < 4) throw new RangeError('capacity must be an integer of at least 4');
    this.#capacity = capacity;
    this.#stride = capacity + 1;
    this.#entries = new RankTreeEntries(expected, expectedNameUnits);
    this.#root = this.#newLeaf();
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Builds the tree from items already in rank order, one per player, in O(n); throws `NotInRankOrderError` if they are not. */
  static fromSorted(items: Iterable<RankItem>, capacity = defaultCapacity): RankTree {
    const sized = Array.isArray(items) ? (items as readonly RankItem[]) : undefined;
    const tree = new RankTree(capacity, sized?.length ?? 0, sized?.reduce((units, item) => units + item.displayName.length, 0) ?? 0);
    const entries = tree.#entries;
    // Leaves start three-quarters full, so the first writes after a rebuild rarely split.
    const fill = Math.max(2, Math.floor((capacity * 3) / 4));
    let leaf = tree.#root as Leaf;
    const leaves: Leaf[] = [leaf];
    let previous: RankItem | undefined;
    for (const item of items) {
      if (previous && compareRankKeys(previous, item) >= 0) throw new NotInRankOrderError('fromSorted needs items in strictly increasing rank order');
      if (entries.find(item.playerId) !== -1) throw new NotInRankOrderError(`player ${item.playerId} appears twice`);
      if (leaf.count === fill) {
        const next = tree.#newLeaf();
        leaf.next = next;
        next.previous = leaf;
        leaf = next;
        leaves.push(leaf);
      }
      const entry = entries.add(item.playerId, item.displayName);
      const at = leaf.base + leaf.count++;
      leaf.scores[at] = item.sortScore;
      tree.#setSubscore(leaf, at, item.sortSubscore);
      leaf.times[at] = item.achievedAt;
      leaf.entries[at] = entry;
      entries.leafOf[entry] = leaf.number;
      previous = item;
    }
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
    const entries = this.#entries;
    let entry = entries.find(item.playerId);
    if (entry !== -1) {
      const leaf = this.#leaves[entries.leafOf[entry]!]!;
      const index = this.#indexOf(leaf, entry);
      entries.names.set(entry, item.displayName);
      if (this.#holdsKey(leaf, index, item)) return;
      this.#removeAt(leaf, index);
    } else {
      entry = entries.add(item.playerId, item.displayName);
    }
    this.#insert(item, entry);
  }

  /** Removes a player's entry; false when there was none. */
  remove(playerId: string): boolean {
    const entry = this.#entries.find(playerId);
    if (entry === -1) return false;
    const leaf = this.#leaves[this.#entries.leafOf[entry]!]!;
    this.#removeAt(leaf, this.#indexOf(leaf, entry));
    this.#entries.delete(entry);
    return true;
  }

  /** The player's 1-based rank, or undefined when absent. */
  rankOf(playerId: string): number | undefined {
    const entry = this.#entries.find(playerId);
    if (entry === -1) return undefined;
    const leaf = this.#leaves[this.#entries.leafOf[entry]!]!;
    return this.#rankAt(leaf, this.#indexOf(leaf, entry));
  }

  /**
   * The player's rank and the items from up to `radius` before theirs to up to `radius` after
   * (theirs included), with the rank of the first; undefined when absent. One lookup: the
   * neighbours are read along the leaves from the player's own.
   */
  around(playerId: string, radius: number): { rank: number; firstRank: number; items: RankItem[] } | undefined {
    const entry = this.#entries.find(playerId);
    if (entry === -1) return undefined;
    let leaf = this.#leaves[this.#entries.leafOf[entry]!]!;
    let at = this.#indexOf(leaf, entry);
    const rank = this.#rankAt(leaf, at);
    // Step back up to `radius` items, across leaves.
    let before = 0;
    while (before < radius) {
      if (at > 0) {
        const step = Math.min(at, radius - before);
        at -= step;
        before += step;
      } else if (leaf.previous) {
        leaf = leaf.previous;
        at = leaf.count;
      } else {
        break;
      }
    }
    return { rank, firstRank: rank - before, items: this.#readOn(leaf, at, before + 1 + radius) };
  }

  /**
   * The player's item, or undefined when absent: `around(playerId, 0)` without the rank (no walk
   * up the tree) and with the id as given (not unpacked again), for reads of many players at once.
   */
  itemOf(playerId: string): RankItem | undefined {
    const entries = this.#entries;
    const entry = entries.find(playerId);
    if (entry === -1) return undefined;
    const leaf = this.#leaves[entries.leafOf[entry]!]!;
    const at = leaf.base + this.#indexOf(leaf, entry);
    return { sortScore: leaf.scores[at]!, sortSubscore: leaf.subscores ? leaf.subscores[at]! : 0, achievedAt: leaf.times[at]!, playerId, displayName: entries.names.get(entry) };
  }

  /**
   * Up to `count` items ranked after `key`, with the rank of the first. A cursor names an entry;
   * while that entry has not moved it is found by its player and read on from along the leaves,
   * with no search by key. Otherwise the position is found by key.
   */
  itemsAfter(key: RankKey, count: number): { firstRank: number; items: RankItem[] } {
    const entry = this.#entries.find(key.playerId);
    if (entry !== -1) {
      const leaf = this.#leaves[this.#entries.leafOf[entry]!]!;
      const index = this.#indexOf(leaf, entry);
      if (this.#holdsKey(leaf, index, key)) {
        return { firstRank: this.#rankAt(leaf, index) + 1, items: this.#readOn(leaf, index + 1, count) };
      }
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
    return count + this.#leafIndexAfter(node, key);
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
    return this.#readOn(node, offset, count);
  }

  /** Throws unless every count, separator, parent and sibling link, leaf number and id lookup is right (for tests). */
  verifyStructure(): void {
    const leaves: Leaf[] = [];
    const inUse = new Set<number>();
    const check = (node: TreeNode, parent: Branch | null, low: RankKey | undefined, high: RankKey | undefined): number => {
      if (node.parent !== parent) throw new Error('wrong parent link');
      if (node instanceof Leaf) {
        leaves.push(node);
        if (this.#leaves[node.number] !== node) throw new Error('leaf not found by its number');
        if (node.count === 0 && node !== this.#root) throw new Error('empty leaf');
        if (node.count > this.#capacity) throw new Error('overfull leaf');
        for (let i = 0; i < node.count; i++) {
          const entry = node.entries[node.base + i]!;
          const key = this.#keyAt(node, i);
          if (this.#entries.leafOf[entry] !== node.number || inUse.has(entry)) throw new Error(`entry of ${key.playerId} misplaced`);
          inUse.add(entry);
          if (i > 0 && compareRankKeys(this.#keyAt(node, i - 1), key) >= 0) throw new Error('leaf out of order');
          if ((low && compareRankKeys(key, low) < 0) || (high && compareRankKeys(key, high) >= 0)) throw new Error('item outside its separators');
        }
        return node.count;
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
    if (this.#leaves.filter((leaf) => leaf !== undefined).length !== leaves.length) throw new Error('a freed leaf is still numbered');
    this.#entries.verify(inUse);
  }

  #newLeaf(): Leaf {
    const number = this.#freeLeaves.pop() ?? this.#leaves.length;
    const slabIndex = Math.floor(number / leavesPerSlab);
    const slab = (this.#slabs[slabIndex] ??= new Slab(this.#stride));
    const leaf = new Leaf(number, slab.scores, slab.subscores, slab.times, slab.entries, (number % leavesPerSlab) * this.#stride);
    this.#leaves[number] = leaf;
    return leaf;
  }

  /** The leaf's subscores, allocated for its whole slab (and every leaf of it) if it had none. */
  #subscoresOf(leaf: Leaf): Float64Array {
    if (leaf.subscores) return leaf.subscores;
    const slabIndex = Math.floor(leaf.number / leavesPerSlab);
    const subscores = new Float64Array(leavesPerSlab * this.#stride);
    this.#slabs[slabIndex]!.subscores = subscores;
    for (let number = slabIndex * leavesPerSlab; number < (slabIndex + 1) * leavesPerSlab; number++) {
      const sibling = this.#leaves[number];
      if (sibling) sibling.subscores = subscores;
    }
    return subscores;
  }

  /** Writes an item's subscore; a slab without subscores (all 0) gets them only for another value. */
  #setSubscore(leaf: Leaf, at: number, subscore: number): void {
    if (leaf.subscores) leaf.subscores[at] = subscore;
    else if (subscore !== 0) this.#subscoresOf(leaf)[at] = subscore;
  }

  #freeLeaf(leaf: Leaf): void {
    this.#leaves[leaf.number] = undefined;
    this.#freeLeaves.push(leaf.number);
  }

  /** Where an entry sits in its leaf. */
  #indexOf(leaf: Leaf, entry: number): number {
    const entries = leaf.entries;
    const end = leaf.base + leaf.count;
    for (let at = leaf.base; at < end; at++) if (entries[at] === entry) return at - leaf.base;
    throw new Error('entry not in its leaf');
  }

  #keyAt(leaf: Leaf, index: number): RankKey {
    const at = leaf.base + index;
    return { sortScore: leaf.scores[at]!, sortSubscore: leaf.subscores ? leaf.subscores[at]! : 0, achievedAt: leaf.times[at]!, playerId: this.#entries.playerIdOf(leaf.entries[at]!) };
  }

  /** True when the item at `index` of `leaf` is at the key's score, subscore and time (its player's item, unmoved). */
  #holdsKey(leaf: Leaf, index: number, key: RankKey): boolean {
    const at = leaf.base + index;
    return leaf.scores[at] === key.sortScore && (leaf.subscores ? leaf.subscores[at]! : 0) === key.sortSubscore && leaf.times[at] === key.achievedAt;
  }

  /** Up to `count` items in rank order from `index` of `leaf` on, following the leaf links. */
  #readOn(leaf: Leaf, index: number, count: number): RankItem[] {
    const items: RankItem[] = [];
    const entries = this.#entries;
    for (let current: Leaf | null = leaf; current && items.length < count; current = current.next, index = 0) {
      const end = current.base + current.count;
      for (let at = current.base + index; at < end && items.length < count; at++) {
        const entry = current.entries[at]!;
        items.push({
          sortScore: current.scores[at]!,
          sortSubscore: current.subscores ? current.subscores[at]! : 0,
          achievedAt: current.times[at]!,
          playerId: entries.playerIdOf(entry),
          displayName: entries.names.get(entry),
        });
      }
    }
    return items;
  }

  /** Makes `key` the one `#compareAt` compares with. */
  #setKey(key: RankKey): void {
    this.#keyPacked = packUuid(key.playerId, this.#keyWords, 0);
  }

  /** Negative when the item at `index` of `leaf` ranks before the key of the last `#setKey`, zero when it is that key. */
  #compareAt(leaf: Leaf, index: number, key: RankKey): number {
    const at = leaf.base + index;
    const score = leaf.scores[at]!;
    if (score !== key.sortScore) return score < key.sortScore ? -1 : 1;
    const subscore = leaf.subscores ? leaf.subscores[at]! : 0;
    if (subscore !== key.sortSubscore) return subscore < key.sortSubscore ? -1 : 1;
    const time = leaf.times[at]!;
    if (time !== key.achievedAt) return time < key.achievedAt ? -1 : 1;
    return this.#entries.compareIdTo(leaf.entries[at]!, key.playerId, this.#keyWords, this.#keyPacked);
  }

  /** How many items of the leaf rank at or before `key`. */
  #leafIndexAfter(leaf: Leaf, key: RankKey): number {
    this.#setKey(key);
    let low = 0;
    let high = leaf.count;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.#compareAt(leaf, middle, key) <= 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** The rank of the item at `index` of its leaf: its place there plus every item in earlier subtrees. */
  #rankAt(leaf: Leaf, index: number): number {
    let rank = index + 1;
    let node: TreeNode = leaf;
    for (let parent = node.parent; parent; node = parent, parent = parent.parent) {
      const counts = parent.counts;
      for (let i = parent.children.indexOf(node) - 1; i >= 0; i--) rank += counts[i]!;
    }
    return rank;
  }

  /** Places an entry (not in the tree) at its key's position. */
  #insert(key: RankKey, entry: number): void {
    let node = this.#root;
    while (node instanceof Branch) node = node.children[this.#childFor(node, key)]!;
    // The entry's old place is gone already and keys are unique: nothing in the leaf equals it.
    const index = this.#leafIndexAfter(node, key);
    const at = node.base + index;
    const end = node.base + node.count;
    node.scores.copyWithin(at + 1, at, end);
    node.subscores?.copyWithin(at + 1, at, end);
    node.times.copyWithin(at + 1, at, end);
    node.entries.copyWithin(at + 1, at, end);
    node.scores[at] = key.sortScore;
    this.#setSubscore(node, at, key.sortSubscore);
    node.times[at] = key.achievedAt;
    node.entries[at] = entry;
    node.count += 1;
    this.#entries.leafOf[entry] = node.number;
    this.#addToCounts(node, 1);
    if (node.count > this.#capacity) this.#splitLeaf(node);
  }

  /** Takes the item at `index` out of its leaf (its entry stays allocated). */
  #removeAt(leaf: Leaf, index: number): void {
    const at = leaf.base + index;
    const end = leaf.base + leaf.count;
    leaf.scores.copyWithin(at, at + 1, end);
    leaf.subscores?.copyWithin(at, at + 1, end);
    leaf.times.copyWithin(at, at + 1, end);
    leaf.entries.copyWithin(at, at + 1, end);
    leaf.count -= 1;
    this.#addToCounts(leaf, -1);
    this.#rebalance(leaf);
  }

  /** Appends `from`'s items `from.base + start ..` (to its end) to `into`'s, and tells their entries. */
  #moveItems(from: Leaf, start: number, into: Leaf): void {
    const leafOf = this.#entries.leafOf;
    let to = into.base + into.count;
    const end = from.base + from.count;
    const fromSubscores = from.subscores;
    const intoSubscores = fromSubscores ? this.#subscoresOf(into) : into.subscores;
    for (let at = from.base + start; at < end; at++, to++) {
      into.scores[to] = from.scores[at]!;
      if (intoSubscores) intoSubscores[to] = fromSubscores ? fromSubscores[at]! : 0;
      into.times[to] = from.times[at]!;
      const entry = from.entries[at]!;
      into.entries[to] = entry;
      leafOf[entry] = into.number;
    }
    into.count += from.count - start;
    from.count = start;
  }

  /** The child of a branch whose range holds `key`: the number of separators at or below it. */
  #childFor(branch: Branch, key: RankKey): number {
    return indexAfter(branch.keys, key, 1) - 1;
  }

  #addToCounts(node: TreeNode, delta: number): void {
    for (let parent = node.parent; parent; node = parent, parent = parent.parent) parent.counts[parent.children.indexOf(node)]! += delta;
  }

  #append(branch: Branch, child: TreeNode): void {
    branch.keys.push(branch.children.length === 0 ? undefined : this.#firstKey(child));
    branch.children.push(child);
    branch.counts.push(countOf(child));
    child.parent = branch;
  }

  #firstKey(node: TreeNode): RankKey {
    let first = node;
    while (first instanceof Branch) first = first.children[0]!;
    return this.#keyAt(first, 0);
  }

  #splitLeaf(leaf: Leaf): void {
    const right = this.#newLeaf();
    this.#moveItems(leaf, leaf.count >>> 1, right);
    right.next = leaf.next;
    if (right.next) right.next.previous = right;
    right.previous = leaf;
    leaf.next = right;
    this.#insertSibling(leaf, right, this.#keyAt(right, 0));
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
    if (child instanceof Leaf) this.#unlinkLeaf(child);
  }

  /** Moves everything of `children[left + 1]` into `children[left]`. */
  #merge(parent: Branch, left: number): void {
    const into = parent.children[left]!;
    const from = parent.children[left + 1]!;
    if (into instanceof Leaf && from instanceof Leaf) {
      this.#moveItems(from, 0, into);
      this.#unlinkLeaf(from);
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

  /** Takes a leaf out of the leaf links and frees its number (and its region of the slab). */
  #unlinkLeaf(leaf: Leaf): void {
    if (leaf.previous) leaf.previous.next = leaf.next;
    if (leaf.next) leaf.next.previous = leaf.previous;
    leaf.previous = null;
    leaf.next = null;
    this.#freeLeaf(leaf);
  }
}

function countOf(node: TreeNode): number {
  return node instanceof Leaf ? node.count : sum(node.counts);
}

function widthOf(node: TreeNode): number {
  return node instanceof Leaf ? node.count : node.children.length;
}

import { EntryNames } from './entry-names.js';
import { comparePackedUuids, hashPackedUuid, isPackedUuid, packUuid, unpackUuid } from './packed-player-ids.js';

/** A hash table at most this full doubles (open addressing, linear probing). */
const maxLoad = 0.7;
const minHashSlots = 16;
const minEntries = 64;
const noEntry = -1;

/**
 * The per-player part of a rank tree, by entry number (stable while the player has an entry,
 * reused after): the player id (packed UUID words, or a string kept aside for other ids), the
 * display name (as UTF-8 in one arena: entry-names.ts), and the number of the leaf holding the entry. UUID entries are found by an
 * open-addressing hash over their packed words (4 bytes a slot); other ids by a `Map`.
 */
export class RankTreeEntries {
  /** Four words per entry: a packed UUID, or zeros for an id in `#otherIds`. */
  ids = new Uint32Array(minEntries * 4);
  leafOf = new Int32Array(minEntries);
  /** Display names by entry. */
  readonly names: EntryNames;
  #capacity = minEntries;
  #next = 0;
  readonly #free: number[] = [];
  #size = 0;
  /** Entry numbers of packed UUIDs, `noEntry` where empty. */
  #slots = new Int32Array(minHashSlots).fill(noEntry);
  #packedCount = 0;
  /** Ids that are not canonical UUIDs: id -> entry, entry -> id. */
  readonly #entryOfOther = new Map<string, number>();
  readonly #otherIds = new Map<number, string>();
  /** Scratch for packing a looked-up id. */
  readonly #key = new Uint32Array(4);

  /** `expected`: how many entries to make room for at once (a build from sorted items), with names of about `expectedNameBytes`. */
  constructor(expected = 0, expectedNameBytes = 0) {
    this.names = new EntryNames(minEntries, expectedNameBytes);
    if (expected > minEntries) this.#resize(expected);
    let slots = minHashSlots;
    while (expected > slots * maxLoad) slots *= 2;
    this.#slots = new Int32Array(slots).fill(noEntry);
  }

  get size(): number {
    return this.#size;
  }

  /** The entry of a player, or -1. */
  find(playerId: string): number {
    const key = this.#key;
    if (!packUuid(playerId, key, 0)) return this.#entryOfOther.get(playerId) ?? noEntry;
    const slots = this.#slots;
    const mask = slots.length - 1;
    for (let slot = hashPackedUuid(key, 0) & mask; ; slot = (slot + 1) & mask) {
      const entry = slots[slot]!;
      if (entry === noEntry || comparePackedUuids(this.ids, entry * 4, key, 0) === 0) return entry;
    }
  }

  /** A new entry for a player who has none. */
  add(playerId: string, displayName: string): number {
    const entry = this.#free.pop() ?? this.#next++;
    if (entry >= this.#capacity) this.#resize(Math.ceil(this.#capacity * 1.5));
    this.names.set(entry, displayName);
    this.#size += 1;
    if (packUuid(playerId, this.ids, entry * 4)) {
      if (this.#packedCount + 1 > this.#slots.length * maxLoad) this.#rehash(this.#slots.length * 2);
      this.#place(entry);
      this.#packedCount += 1;
    } else {
      this.ids.fill(0, entry * 4, entry * 4 + 4);
      this.#entryOfOther.set(playerId, entry);
      this.#otherIds.set(entry, playerId);
    }
    return entry;
  }

  /** Forgets an entry (its number may be handed out again). */
  delete(entry: number): void {
    if (isPackedUuid(this.ids, entry * 4)) {
      this.#unplace(entry);
      this.#packedCount -= 1;
    } else {
      this.#entryOfOther.delete(this.#otherIds.get(entry)!);
      this.#otherIds.delete(entry);
    }
    this.names.clear(entry);
    this.leafOf[entry] = noEntry;
    this.#size -= 1;
    this.#free.push(entry);
  }

  playerIdOf(entry: number): string {
    return isPackedUuid(this.ids, entry * 4) ? unpackUuid(this.ids, entry * 4) : this.#otherIds.get(entry)!;
  }

  /**
   * Compares an entry's player id with `playerId` by UTF-16 code units (the rank order's tie
   * break). `packed` says whether `words` holds `playerId` packed (then two UUIDs compare by words).
   */
  compareIdTo(entry: number, playerId: string, words: Uint32Array, packed: boolean): number {
    if (packed && isPackedUuid(this.ids, entry * 4)) return comparePackedUuids(this.ids, entry * 4, words, 0);
    const own = this.playerIdOf(entry);
    return own === playerId ? 0 : own < playerId ? -1 : 1;
  }

  /** Throws unless every entry in use is found by its id (for tests). */
  verify(inUse: ReadonlySet<number>): void {
    if (inUse.size !== this.#size) throw new Error('entry count differs from the entries in the tree');
    let packed = 0;
    for (const entry of inUse) {
      if (this.find(this.playerIdOf(entry)) !== entry) throw new Error(`entry ${entry} is not found by its player id`);
      if (isPackedUuid(this.ids, entry * 4)) packed++;
    }
    if (packed !== this.#packedCount || inUse.size - packed !== this.#otherIds.size) throw new Error('wrong count of packed or other ids');
  }

  #resize(capacity: number): void {
    const ids = new Uint32Array(capacity * 4);
    ids.set(this.ids.subarray(0, Math.min(this.ids.length, capacity * 4)));
    const leafOf = new Int32Array(capacity);
    leafOf.set(this.leafOf.subarray(0, Math.min(this.leafOf.length, capacity)));
    this.ids = ids;
    this.leafOf = leafOf;
    this.names.resize(capacity);
    this.#capacity = capacity;
  }

  #place(entry: number): void {
    const slots = this.#slots;
    const mask = slots.length - 1;
    let slot = hashPackedUuid(this.ids, entry * 4) & mask;
    while (slots[slot] !== noEntry) slot = (slot + 1) & mask;
    slots[slot] = entry;
  }

  /** Removes an entry from its probe run, shifting later members of the run back (no tombstones). */
  #unplace(entry: number): void {
    const slots = this.#slots;
    const mask = slots.length - 1;
    let hole = hashPackedUuid(this.ids, entry * 4) & mask;
    while (slots[hole] !== entry) hole = (hole + 1) & mask;
    for (let slot = (hole + 1) & mask; slots[slot] !== noEntry; slot = (slot + 1) & mask) {
      const home = hashPackedUuid(this.ids, slots[slot]! * 4) & mask;
      // Move it into the hole unless its home lies cyclically in (hole, slot].
      const stays = hole <= slot ? home > hole && home <= slot : home > hole || home <= slot;
      if (!stays) {
        slots[hole] = slots[slot]!;
        hole = slot;
      }
    }
    slots[hole] = noEntry;
  }

  #rehash(size: number): void {
    const old = this.#slots;
    this.#slots = new Int32Array(size).fill(noEntry);
    for (const entry of old) if (entry !== noEntry) this.#place(entry);
  }
}

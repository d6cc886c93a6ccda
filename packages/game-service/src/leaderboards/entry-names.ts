const encoder = new TextEncoder();
const minArenaBytes = 1024;
/** The arena is compacted once names no entry uses take more than this share of it. */
const maxGarbageShare = 0.5;

/**
 * Display names by entry number, as UTF-8 bytes in one arena: an offset (4 bytes) and a length
 * (2; a name is at most 64 code points, 256 bytes) per entry, and the bytes themselves. A string
 * per entry cost its 8-byte pointer and a 32-byte string for a 13-character name; only the names
 * a read returns are made into strings. A renamed or deleted entry's old bytes stay until the
 * arena is compacted, when they pass half of it.
 */
export class EntryNames {
  #bytes: Uint8Array;
  #text: Buffer;
  #offsets: Uint32Array;
  #lengths: Uint16Array;
  #used = 0;
  #garbage = 0;

  /** `expectedBytes`: the names about to be set (a build), so the arena is made once at its size. */
  constructor(capacity: number, expectedBytes = 0) {
    // A little room beyond the expected, for the first renames; a name of more than one byte per UTF-16 unit grows the arena.
    this.#bytes = new Uint8Array(Math.max(minArenaBytes, Math.ceil(expectedBytes * 1.0625)));
    this.#text = Buffer.from(this.#bytes.buffer, this.#bytes.byteOffset, this.#bytes.byteLength);
    this.#offsets = new Uint32Array(capacity);
    this.#lengths = new Uint16Array(capacity);
  }

  /** Makes room for entry numbers below `capacity` (entries keep their names). */
  resize(capacity: number): void {
    const offsets = new Uint32Array(capacity);
    offsets.set(this.#offsets.subarray(0, Math.min(capacity, this.#offsets.length)));
    const lengths = new Uint16Array(capacity);
    lengths.set(this.#lengths.subarray(0, Math.min(capacity, this.#lengths.length)));
    this.#offsets = offsets;
    this.#lengths = lengths;
  }

  /** Bytes the arena takes (live names, dead ones not yet compacted away, and room to grow). */
  get arenaBytes(): number {
    return this.#bytes.length;
  }

  get(entry: number): string {
    const length = this.#lengths[entry]!;
    if (length === 0) return '';
    const offset = this.#offsets[entry]!;
    return this.#text.toString('utf8', offset, offset + length);
  }

  set(entry: number, name: string): void {
    this.clear(entry);
    let { read, written } = encoder.encodeInto(name, this.#bytes.subarray(this.#used));
    if (read < name.length) {
      // It did not fit: room for the worst case (3 bytes per UTF-16 unit), then again.
      this.#makeRoom(name.length * 3);
      ({ read, written } = encoder.encodeInto(name, this.#bytes.subarray(this.#used)));
    }
    this.#offsets[entry] = this.#used;
    this.#lengths[entry] = written;
    this.#used += written;
  }

  clear(entry: number): void {
    this.#garbage += this.#lengths[entry]!;
    this.#lengths[entry] = 0;
  }

  /** Compacts the arena when its dead bytes are many, else grows it, so `needed` more bytes fit. */
  #makeRoom(needed: number): void {
    const live = this.#used - this.#garbage;
    const size = Math.max(minArenaBytes, Math.ceil((this.#garbage > this.#used * maxGarbageShare ? live : this.#used) * 1.5) + needed);
    const bytes = new Uint8Array(size);
    let used = 0;
    if (this.#garbage > this.#used * maxGarbageShare) {
      for (let entry = 0; entry < this.#lengths.length; entry++) {
        const length = this.#lengths[entry]!;
        if (length === 0) continue;
        const offset = this.#offsets[entry]!;
        bytes.set(this.#bytes.subarray(offset, offset + length), used);
        this.#offsets[entry] = used;
        used += length;
      }
      this.#garbage = 0;
    } else {
      bytes.set(this.#bytes.subarray(0, this.#used));
      used = this.#used;
    }
    this.#bytes = bytes;
    this.#text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.#used = used;
  }
}

/**
 * Player ids as the rank tree stores them: four 32-bit words per entry. A canonical lowercase
 * RFC 4122 UUID (what the service's `randomUUID()` makes: 36 characters, variant nibble 8-b) is
 * packed into its 16 bytes, big-endian, so comparing the words as unsigned numbers orders them as
 * their strings do (lowercase hex digits and dashes at fixed places). Any other id is kept as a
 * string beside the tree, and its words are all zero: the variant bits of a packed UUID (`10` at
 * the top of the third word) are never zero, so the two cannot be confused.
 */

/** Where the 32 hex digits of a canonical UUID sit in its 36 characters. */
const hexPositions = [0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 14, 15, 16, 17, 19, 20, 21, 22, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35];
const dashPositions = [8, 13, 18, 23];
const uuidLength = 36;
const dashCode = 0x2d;

/** The value of a lowercase hex digit's char code, or -1. */
const hexValue = new Int8Array(128).fill(-1);
for (let digit = 0; digit < 16; digit++) hexValue[digit.toString(16).charCodeAt(0)] = digit;

/** Two lowercase hex digits per byte value. */
const hexByte = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/**
 * Writes the UUID's words to `words[at..at+3]` and answers true, or answers false (leaving them
 * as they were) when `id` is not a canonical lowercase RFC 4122 UUID.
 */
export function packUuid(id: string, words: Uint32Array, at: number): boolean {
  if (id.length !== uuidLength) return false;
  for (const position of dashPositions) if (id.charCodeAt(position) !== dashCode) return false;
  // The variant nibble (the 17th digit): 8, 9, a or b.
  const variant = hexValue[id.charCodeAt(19)] ?? -1;
  if (variant < 8 || variant > 11) return false;
  let w0 = 0;
  let w1 = 0;
  let w2 = 0;
  let w3 = 0;
  for (let digit = 0; digit < 32; digit++) {
    const value = hexValue[id.charCodeAt(hexPositions[digit]!)] ?? -1;
    if (value < 0) return false;
    if (digit < 8) w0 = (w0 << 4) | value;
    else if (digit < 16) w1 = (w1 << 4) | value;
    else if (digit < 24) w2 = (w2 << 4) | value;
    else w3 = (w3 << 4) | value;
  }
  words[at] = w0;
  words[at + 1] = w1;
  words[at + 2] = w2;
  words[at + 3] = w3;
  return true;
}

/** Whether the words at `at` hold a packed UUID (not the zeros of an id kept as a string). */
export function isPackedUuid(words: Uint32Array, at: number): boolean {
  return words[at + 2]! >>> 30 === 2;
}

function hexWord(word: number): string {
  return hexByte[word >>> 24]! + hexByte[(word >>> 16) & 0xff]! + hexByte[(word >>> 8) & 0xff]! + hexByte[word & 0xff]!;
}

/** The UUID string of the packed words at `at`. */
export function unpackUuid(words: Uint32Array, at: number): string {
  const w1 = hexWord(words[at + 1]!);
  const w2 = hexWord(words[at + 2]!);
  return `${hexWord(words[at]!)}-${w1.slice(0, 4)}-${w1.slice(4)}-${w2.slice(0, 4)}-${w2.slice(4)}${hexWord(words[at + 3]!)}`;
}

/** Compares the packed UUIDs at `a` of `words` and `b` of `other` by their strings' order. */
export function comparePackedUuids(words: Uint32Array, a: number, other: Uint32Array, b: number): number {
  for (let i = 0; i < 4; i++) {
    const x = words[a + i]!;
    const y = other[b + i]!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** A 32-bit hash of the packed UUID at `at` (all four words mixed: v1 and v7 UUIDs start with a clock). */
export function hashPackedUuid(words: Uint32Array, at: number): number {
  let h = Math.imul(words[at]! ^ 0x9e3779b9, 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 15) ^ words[at + 1]!, 0xc2b2ae35);
  h = Math.imul(h ^ (h >>> 13) ^ words[at + 2]!, 0x27d4eb2f);
  h = Math.imul(h ^ (h >>> 16) ^ words[at + 3]!, 0x165667b1);
  return (h ^ (h >>> 15)) >>> 0;
}

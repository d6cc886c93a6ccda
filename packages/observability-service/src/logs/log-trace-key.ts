// The trace directory's key of a trace id (log-trace-directory.ts). Computed where records are
// packed (the receiving thread), so the SQLite writer only copies it.

/** A trace directory part: one of 256. */
export const traceParts = 256;

/** murmur3's 32-bit finalizer: every input bit moves every output bit. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * A trace id's directory key, `part + traceParts * print` (8 + 32 bits), from two 32-bit FNV-1a
 * lanes over the whole id, so ids that share a prefix or a suffix (counters, fixed vendor bytes)
 * spread as evenly as random ones.
 */
export function traceKey(traceId: string): number {
  let a = 0x811c9dc5;
  let b = 0x9e3779b9;
  for (let index = 0; index < traceId.length; index++) {
    const code = traceId.charCodeAt(index);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x5bd1e995);
  }
  return (mix(b) % traceParts) + traceParts * mix(a);
}

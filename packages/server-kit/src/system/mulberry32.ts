/**
 * Mulberry32: a small seeded 32-bit PRNG, exactly reproducible in any language. Yields [0, 1).
 * The same seed gives the same sequence (games replay runs from it; tests and benchmarks generate
 * data a failure can be replayed with). Not for anything secret.
 */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

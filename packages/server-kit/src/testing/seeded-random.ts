import { mulberry32 } from '../system/mulberry32.js';

/**
 * mulberry32, a small seeded PRNG for generated test and benchmark data: the same seed gives the
 * same data, so a failing figure can be replayed. Not for anything secret.
 */
export function seededRandom(seed: number): () => number {
  return mulberry32(seed);
}

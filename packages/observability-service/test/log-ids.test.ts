import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { assignLogIds, bucketFirstId, bucketOfId, bucketStartMs, firstIdAt, idBucketMs, idRangeOf, idsBefore, slotsPerMs } from '../src/logs/log-ids.js';

const bucketSlots = slotsPerMs * idBucketMs;
const base = bucketStartMs(Date.UTC(2026, 11, 7, 12));

/** A store's slots as a map of bucket start -> largest stored id, answering as the SQL store does, and counting its calls. */
function storeOf(stored: Map<number, number>) {
  const calls: number[][] = [];
  return {
    calls,
    slots: async (buckets: readonly number[], slots: number) => {
      expect(slots).toBe(bucketSlots);
      calls.push([...buckets]);
      return new Map(buckets.filter((bucket) => stored.has(bucket)).map((bucket) => [bucket, stored.get(bucket)!]));
    },
  };
}

describe('log ids', () => {
  it('orders by bucket, then by arrival within a bucket, above what each bucket already holds, in one look-up', async () => {
    const stored = new Map([[base, bucketFirstId(base) + 41]]);
    const store = storeOf(stored);
    // Given in arrival order: two of the first bucket out of time order, one of the next, one more of the first.
    const times = [base + 200, base + idBucketMs + 3, base + 10, base + 249];
    const ids = await assignLogIds(times, store.slots);
    expect(ids).toEqual([bucketFirstId(base) + 42, bucketFirstId(base + idBucketMs), bucketFirstId(base) + 43, bucketFirstId(base) + 44]);
    expect(store.calls).toEqual([[base, base + idBucketMs]]);
    for (const [index, id] of ids.entries()) expect(bucketOfId(id)).toBe(bucketStartMs(times[index]!));
  });

  it('goes on above ids of the per-millisecond form stored in the same bucket', async () => {
    const olderForm = firstIdAt(base + 240) + 7;
    expect(bucketOfId(olderForm)).toBe(base);
    const ids = await assignLogIds([base + 1, base + 2], storeOf(new Map([[base, olderForm]])).slots);
    expect(ids).toEqual([olderForm + 1, olderForm + 2]);
  });

  it('spills a full bucket into the next one, looking that one up too', async () => {
    const store = storeOf(new Map([[base, bucketFirstId(base) + bucketSlots - 2], [base + idBucketMs, bucketFirstId(base + idBucketMs) + 4]]));
    const ids = await assignLogIds([base, base + 1, base + 2], store.slots);
    expect(ids).toEqual([bucketFirstId(base) + bucketSlots - 1, bucketFirstId(base + idBucketMs) + 5, bucketFirstId(base + idBucketMs) + 6]);
    expect(store.calls).toEqual([[base], [base + idBucketMs]]);
  });

  it('gives distinct ids, increasing by bucket and arrival, above every stored id of the bucket they land in', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 5 * idBucketMs - 1 }), { minLength: 1, maxLength: 200 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: bucketSlots - 1 })), { maxLength: 6 }),
        async (offsets, storedSlots) => {
          const stored = new Map(storedSlots.map(([bucket, slot]) => [base + bucket * idBucketMs, bucketFirstId(base + bucket * idBucketMs) + slot]));
          const times = offsets.map((offset) => base + offset);
          const ids = await assignLogIds(times, storeOf(stored).slots);
          expect(new Set(ids).size).toBe(ids.length);
          const order = times.map((time, index) => ({ bucket: bucketStartMs(time), index })).sort((a, b) => a.bucket - b.bucket || a.index - b.index);
          for (let at = 1; at < order.length; at++) expect(ids[order[at]!.index]!).toBeGreaterThan(ids[order[at - 1]!.index]!);
          for (const [index, id] of ids.entries()) {
            expect(id).toBeGreaterThanOrEqual(bucketFirstId(bucketStartMs(times[index]!)));
            const landed = stored.get(bucketOfId(id));
            if (landed !== undefined) expect(id).toBeGreaterThan(landed);
          }
        },
      ),
    );
  });

  it('maps a time range to the whole buckets that meet it, and a cutoff to the buckets that end by it', () => {
    expect(idRangeOf(base, base + idBucketMs)).toEqual({ first: bucketFirstId(base), end: bucketFirstId(base + idBucketMs) });
    expect(idRangeOf(base + 1, base + idBucketMs + 1)).toEqual({ first: bucketFirstId(base), end: bucketFirstId(base + 2 * idBucketMs) });
    expect(idRangeOf(base + 5, base + 5)).toEqual({ first: bucketFirstId(base), end: bucketFirstId(base) });
    expect(idsBefore(base)).toBe(bucketFirstId(base));
    // A cutoff inside a bucket keeps that bucket: some of its records may be newer.
    expect(idsBefore(base + 1)).toBe(bucketFirstId(base));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 * idBucketMs }), fc.integer({ min: 1, max: 10 * idBucketMs }), fc.integer({ min: 0, max: bucketSlots - 1 }), (from, length, slot) => {
        const fromMs = base + from;
        const toMs = fromMs + length;
        const { first, end } = idRangeOf(fromMs, toMs);
        // Any id a record timed in the range can get without overflow lies in [first, end).
        for (const time of [fromMs, toMs - 1]) {
          const id = bucketFirstId(bucketStartMs(time)) + slot;
          expect(id).toBeGreaterThanOrEqual(first);
          expect(id).toBeLessThan(end);
        }
        // Every id below idsBefore(cutoff) is of a bucket that ends by the cutoff.
        const below = idsBefore(toMs) - 1;
        expect(bucketOfId(below) + idBucketMs).toBeLessThanOrEqual(toMs);
      }),
    );
  });
});

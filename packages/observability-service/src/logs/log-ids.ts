/**
 * Log record ids order records by time, at the grain of `idBucketMs`: a record's id lies in its
 * time bucket's slots, `(bucketStartMs - logIdEpochMs) * slotsPerMs + slot`, and a bucket's
 * records take its slots in arrival order. Ordering by id is then ordering by time between
 * buckets and by arrival within one; a time range is an id range of the primary key (whole
 * buckets, the records' times deciding at its two ends); and the text index (whose rowids are
 * these ids) returns matches newest first without sorting.
 *
 * Why buckets and not milliseconds: records arrive up to seconds after their time, from many
 * senders at once, so ids by millisecond would land all over the last seconds of every index keyed
 * by id (about 2,000 places for records timed over 2 s), and SQLite would write a page of each
 * index per record or so. Within 250 ms buckets they land at about 8 places (per service in
 * `(service, id)`), each the end of its bucket: docs/logs.md, "Throughput", has the figures. A
 * sender's records keep their order (they arrive in it); records of different senders within
 * 250 ms are in the order they arrived (the API shows each page by time).
 *
 * A bucket holds `slotsPerMs * idBucketMs` records (1,024,000, about 4 million a second);
 * further records of the same bucket
 * take the following buckets' slots (they keep their own time, and sort just after it). Ids stay
 * below 2^53 (JavaScript numbers) until September 2069. Ids of the earlier form (by millisecond)
 * lie within their bucket's slots, so both forms share one table.
 */
export const logIdEpochMs = Date.UTC(2000, 0, 1);
export const slotsPerMs = 4096;
/** The time grain of record ids. */
export const idBucketMs = 250;
const slotsPerBucket = slotsPerMs * idBucketMs;

/** The last millisecond an id can stand for (ids stay below 2^53). */
export const lastLogTimeMs = logIdEpochMs + Math.floor(Number.MAX_SAFE_INTEGER / slotsPerMs) - 1;

/** The start of the id bucket holding this millisecond. */
export function bucketStartMs(timeMs: number): number {
  const ms = Math.floor(timeMs);
  return ms - ((((ms - logIdEpochMs) % idBucketMs) + idBucketMs) % idBucketMs);
}

/** The first id of the bucket that starts at `startMs` (a bucket start). */
export function bucketFirstId(startMs: number): number {
  return (startMs - logIdEpochMs) * slotsPerMs;
}

/** The start of the bucket whose slots hold this id. */
export function bucketOfId(id: number): number {
  return logIdEpochMs + Math.floor(id / slotsPerBucket) * idBucketMs;
}

/**
 * The first slot of a millisecond in the per-millisecond form of ids of earlier releases: still a
 * valid id for a record of that millisecond (inside its bucket's slots). Tests and bench seeds
 * build ids with it.
 */
export function firstIdAt(timeMs: number): number {
  return (Math.floor(timeMs) - logIdEpochMs) * slotsPerMs;
}

/**
 * The ids of records timed in [fromMs, toMs): [first, end), the whole buckets that meet the range.
 * Records of the first and last bucket outside the range are in it too: a query also compares
 * `time_ms`.
 */
export function idRangeOf(fromMs: number, toMs: number): { first: number; end: number } {
  return { first: bucketFirstId(bucketStartMs(fromMs)), end: toMs <= fromMs ? bucketFirstId(bucketStartMs(fromMs)) : bucketFirstId(bucketStartMs(toMs - 1) + idBucketMs) };
}

/** Every id below this is of a record timed before `cutoffMs` (the buckets that end by then). */
export function idsBefore(cutoffMs: number): number {
  return bucketFirstId(bucketStartMs(cutoffMs));
}

/** The largest stored id among the slots of each bucket asked for, by the bucket's start (absent: none stored). */
export type StoredSlots = (bucketStarts: readonly number[], slotsPerBucket: number) => Promise<ReadonlyMap<number, number>>;

/** Positions of `keys` in increasing key order, stable: a counting sort when they span few values, else a sort. */
function stableOrder(keys: readonly number[], step: number): Uint32Array {
  const count = keys.length;
  const order = new Uint32Array(count);
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const key of keys) {
    if (key < min) min = key;
    if (key > max) max = key;
  }
  const span = count === 0 ? 0 : (max - min) / step + 1;
  if (span > count + 1024) {
    order.set(Array.from(order.keys()).sort((a, b) => keys[a]! - keys[b]! || a - b));
    return order;
  }
  const starts = new Uint32Array(span + 1);
  for (const key of keys) starts[(key - min) / step + 1]!++;
  for (let offset = 1; offset <= span; offset++) starts[offset]! += starts[offset - 1]!;
  for (let position = 0; position < count; position++) order[starts[(keys[position]! - min) / step]!++] = position;
  return order;
}

/**
 * Ids for records with these times (in the given order, which is their arrival; returned in
 * it), each above every stored id of the bucket it lands in, increasing by bucket and, within
 * one, in the given order. Buckets are looked up in one call; a bucket that overflows into later ones costs one
 * more call for those.
 */
export async function assignLogIds(timesMs: readonly number[], storedSlots: StoredSlots): Promise<number[]> {
  const buckets = timesMs.map(bucketStartMs);
  const order = stableOrder(buckets, idBucketMs);
  const known = new Map<number, number | undefined>();
  let wanted = [...new Set(buckets)];
  for (;;) {
    const found = await storedSlots(wanted, slotsPerBucket);
    for (const bucket of wanted) known.set(bucket, found.get(bucket));
    const ids = new Array<number>(timesMs.length);
    const missing = new Set<number>();
    let next = -Infinity;
    for (const position of order) {
      let candidate = Math.max(next, bucketFirstId(buckets[position]!));
      for (;;) {
        const bucket = bucketOfId(candidate);
        if (!known.has(bucket)) {
          missing.add(bucket);
          break;
        }
        const stored = known.get(bucket);
        if (stored === undefined || candidate > stored) break;
        candidate = stored + 1;
      }
      ids[position] = candidate;
      next = candidate + 1;
    }
    if (missing.size === 0) return ids;
    wanted = [...missing];
  }
}

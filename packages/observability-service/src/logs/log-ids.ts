/**
 * Log record ids order records by time: `(timeMs - logIdEpochMs) * slotsPerMs + slot`. Ordering by
 * id is then ordering by time (and, within a millisecond, by arrival), a time range is an id
 * range of the primary key, and the text index (whose rowids are these ids) returns matches
 * newest first without sorting. Ids stay below 2^53 (JavaScript numbers) until September 2069.
 * A millisecond holds `slotsPerMs` records; further records of the same millisecond take the
 * following milliseconds' slots (they keep their own time, and sort just after it).
 */
export const logIdEpochMs = Date.UTC(2000, 0, 1);
export const slotsPerMs = 4096;

/** The last millisecond an id can stand for (ids stay below 2^53). */
export const lastLogTimeMs = logIdEpochMs + Math.floor(Number.MAX_SAFE_INTEGER / slotsPerMs) - 1;

/** The first id a record of this millisecond can have; ids of [fromMs, toMs) are [firstIdAt(fromMs), firstIdAt(toMs)). */
export function firstIdAt(timeMs: number): number {
  return (Math.floor(timeMs) - logIdEpochMs) * slotsPerMs;
}

/** The millisecond whose slots hold this id. */
export function slotMsOf(id: number): number {
  return Math.floor(id / slotsPerMs) + logIdEpochMs;
}

/** The largest stored id among the slots of each millisecond asked for (absent: none stored). */
export type StoredSlots = (milliseconds: readonly number[]) => Promise<ReadonlyMap<number, number>>;

/**
 * Ids for records with these times (in the given order), each above every stored id of the
 * millisecond it lands in, increasing with time. Milliseconds are looked up in one call; a
 * millisecond that overflows into later ones costs one more call for those.
 */
export async function assignLogIds(timesMs: readonly number[], storedSlots: StoredSlots): Promise<number[]> {
  const order = timesMs.map((time, index) => ({ time: Math.floor(time), index })).sort((a, b) => a.time - b.time || a.index - b.index);
  const known = new Map<number, number | undefined>();
  let wanted = [...new Set(order.map((entry) => entry.time))];
  for (;;) {
    const found = await storedSlots(wanted);
    for (const ms of wanted) known.set(ms, found.get(ms));
    const ids = new Array<number>(timesMs.length);
    const missing = new Set<number>();
    let next = -Infinity;
    for (const { time, index } of order) {
      let candidate = Math.max(next, firstIdAt(time));
      for (;;) {
        const ms = slotMsOf(candidate);
        if (!known.has(ms)) {
          missing.add(ms);
          break;
        }
        const stored = known.get(ms);
        if (stored === undefined || candidate > stored) break;
        candidate = stored + 1;
      }
      ids[index] = candidate;
      next = candidate + 1;
    }
    if (missing.size === 0) return ids;
    wanted = [...missing];
  }
}

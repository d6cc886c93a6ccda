/** Lengths of time in milliseconds, shared by the rollups, the tiers, retention and the views. */
export const minuteMs = 60_000;
export const dayMs = 24 * 60 * minuteMs;

/** Start of the UTC minute a timestamp falls in (the key of every per-minute table). */
export function minuteOf(epochMs: number): number {
  return Math.floor(epochMs / minuteMs) * minuteMs;
}

const dayMs = 86_400_000;
/** Days whose `YYYY-MM-DDT` prefix is remembered; a board's entries span few distinct days. */
const rememberedDays = 4_096;
const dayPrefixes = new Map<number, string>();

/** Zero-padded digits, made once: `two[n]` for 0..59, `three[n]` for 0..999. */
const padded = (count: number, width: number) => Array.from({ length: count }, (_, n) => String(n).padStart(width, '0'));
const two = padded(60, 2);
const three = padded(1_000, 3);

/**
 * `new Date(ms).toISOString()` for integer milliseconds (as stored), without a Date per call: the date part is remembered per day
 * and the time of day is looked up in the digit tables. Leaderboard responses format one per entry.
 */
export function isoTimestamp(ms: number): string {
  const day = Math.floor(ms / dayMs);
  let prefix = dayPrefixes.get(day);
  if (prefix === undefined) {
    const iso = new Date(day * dayMs).toISOString();
    prefix = iso.slice(0, iso.indexOf('T') + 1);
    if (dayPrefixes.size >= rememberedDays) dayPrefixes.clear();
    dayPrefixes.set(day, prefix);
  }
  const time = ms - day * dayMs;
  const seconds = Math.floor(time / 1000);
  return `${prefix}${two[Math.floor(seconds / 3600)]}:${two[Math.floor(seconds / 60) % 60]}:${two[seconds % 60]}.${three[time % 1000]}Z`;
}

const minuteMs = 60_000;

/** Bucket sizes the trend endpoint accepts, finest first. */
const intervals = [
  ['1m', minuteMs],
  ['5m', 5 * minuteMs],
  ['15m', 15 * minuteMs],
  ['1h', 60 * minuteMs],
  ['3h', 180 * minuteMs],
  ['6h', 360 * minuteMs],
  ['12h', 720 * minuteMs],
  ['1d', 1440 * minuteMs],
] as const;

/** A sparkline is a hint of shape, not a chart: this many points are plenty. */
const sparklinePointsMax = 48;

/**
 * The trend interval for a sparkline over `from`..`to`: the finest with at most
 * `sparklinePointsMax` buckets. Coarse buckets let the service answer from its hourly rollups,
 * which matters on a page asking once per service.
 */
export function sparklineInterval(fromIso: string, toIso: string): string {
  const spanMs = Math.max(0, Date.parse(toIso) - Date.parse(fromIso));
  return intervals.find(([, ms]) => Math.ceil(spanMs / ms) <= sparklinePointsMax)?.[0] ?? '1d';
}

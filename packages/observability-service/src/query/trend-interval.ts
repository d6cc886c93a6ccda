import { ApiError } from '@playstack/server-kit/core';
import { minuteMs } from '../time-units.js';
import type { QueryRange } from './query-range.js';

/** Bucket sizes a trend may use, all whole minutes so they line up with the per-minute rollups. */
export const trendIntervalsMs = {
  '1m': minuteMs,
  '5m': 5 * minuteMs,
  '15m': 15 * minuteMs,
  '30m': 30 * minuteMs,
  '1h': 60 * minuteMs,
  '3h': 180 * minuteMs,
  '6h': 360 * minuteMs,
  '12h': 720 * minuteMs,
  '1d': 1440 * minuteMs,
} as const;

export type TrendInterval = keyof typeof trendIntervalsMs;
export const trendIntervalNames = Object.keys(trendIntervalsMs) as TrendInterval[];

/** The automatic choice keeps a chart readable: the finest interval giving at most this many buckets. */
export const autoTrendBucketsMax = 200;
/** Any trend has at most this many buckets (a day of minutes, or about four years of days). */
export const trendBucketsMax = 1440;

/** A trend's bucket layout: aligned to multiples of the interval since the epoch (UTC). */
export interface TrendBuckets {
  readonly interval: TrendInterval;
  readonly intervalMs: number;
  /** Start of the first bucket (at or before the range's start). */
  readonly firstStartMs: number;
  readonly count: number;
}

function layout(range: QueryRange, interval: TrendInterval): TrendBuckets {
  const intervalMs = trendIntervalsMs[interval];
  const firstStartMs = Math.floor(range.fromMs / intervalMs) * intervalMs;
  const endMs = Math.ceil(range.toMs / intervalMs) * intervalMs;
  return { interval, intervalMs, firstStartMs, count: Math.max(0, (endMs - firstStartMs) / intervalMs) };
}

/** Picks the bucket size for a range: the given `interval`, or the finest that keeps the chart small. */
export function trendBucketsFor(range: QueryRange, interval?: TrendInterval): TrendBuckets {
  const chosen = interval ?? trendIntervalNames.find((name) => layout(range, name).count <= autoTrendBucketsMax) ?? '1d';
  const buckets = layout(range, chosen);
  if (buckets.count > trendBucketsMax) {
    throw new ApiError('invalid-request', `interval ${chosen} gives ${buckets.count} buckets over this range; at most ${trendBucketsMax} are allowed: choose a larger interval or a shorter range.`);
  }
  return buckets;
}

/**
 * Every bucket of the layout in time order, each filled from `found` (keyed by bucket start) or
 * with `empty(start)` where nothing was recorded, so charts show gaps as zeros.
 */
export function fillBuckets<T>(buckets: TrendBuckets, found: ReadonlyMap<number, T>, empty: (startMs: number) => T): T[] {
  const out: T[] = [];
  for (let i = 0; i < buckets.count; i += 1) {
    const startMs = buckets.firstStartMs + i * buckets.intervalMs;
    out.push(found.get(startMs) ?? empty(startMs));
  }
  return out;
}

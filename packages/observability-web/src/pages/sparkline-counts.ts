import type { TrendResponse } from '../api/api-types.js';

/**
 * A trend's counts for a sparkline, without a first bucket that starts before the range: the
 * range cuts it, and it would show a drop that is not there. The last bucket stays even when the
 * range ends inside it: it is the one still filling, the news a dashboard is looked at for.
 */
export function sparklineCounts(trend: Pick<TrendResponse, 'from' | 'buckets'>): number[] {
  const fromMs = Date.parse(trend.from);
  const cut = trend.buckets.length > 2 && Date.parse(trend.buckets[0]!.start) < fromMs;
  return (cut ? trend.buckets.slice(1) : trend.buckets).map((bucket) => bucket.count);
}

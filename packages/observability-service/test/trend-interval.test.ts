import { describe, expect, it } from 'vitest';
import { ApiError } from '@playstack/server-kit';
import { fillBuckets, trendBucketsFor } from '../src/query/trend-interval.js';

const hourMs = 3_600_000;
const at = (iso: string) => Date.parse(iso);

describe('trend buckets', () => {
  it('chooses 15-minute buckets for a day and hourly buckets for a week', () => {
    const day = trendBucketsFor({ fromMs: at('2026-11-20T12:00:00Z'), toMs: at('2026-11-21T12:00:00Z') });
    expect(day).toMatchObject({ interval: '15m', count: 96, firstStartMs: at('2026-11-20T12:00:00Z') });
    const week = trendBucketsFor({ fromMs: at('2026-11-14T12:00:00Z'), toMs: at('2026-11-21T12:00:00Z') });
    expect(week).toMatchObject({ interval: '1h', count: 168 });
  });

  it('chooses minutes for an hour', () => {
    expect(trendBucketsFor({ fromMs: at('2026-11-21T11:00:00Z'), toMs: at('2026-11-21T12:00:00Z') })).toMatchObject({ interval: '1m', count: 60 });
  });

  it('aligns buckets to the interval, covering a range that starts and ends mid-bucket', () => {
    const buckets = trendBucketsFor({ fromMs: at('2026-11-21T10:20:00Z'), toMs: at('2026-11-21T12:10:00Z') }, '1h');
    expect(buckets).toMatchObject({ intervalMs: hourMs, firstStartMs: at('2026-11-21T10:00:00Z'), count: 3 });
  });

  it('honours an explicit interval and refuses one that gives too many buckets', () => {
    const week = { fromMs: at('2026-11-14T00:00:00Z'), toMs: at('2026-11-21T00:00:00Z') };
    expect(trendBucketsFor(week, '1d')).toMatchObject({ interval: '1d', count: 7 });
    expect(() => trendBucketsFor(week, '1m')).toThrow(ApiError);
    expect(() => trendBucketsFor(week, '1m')).toThrow(/1m gives 10080 buckets/);
  });

  it('fills buckets with no data as zeros, in time order', () => {
    const buckets = trendBucketsFor({ fromMs: at('2026-11-21T00:00:00Z'), toMs: at('2026-11-21T04:00:00Z') }, '1h');
    const found = new Map([[at('2026-11-21T02:00:00Z'), { startMs: at('2026-11-21T02:00:00Z'), count: 5 }]]);
    const filled = fillBuckets(buckets, found, (startMs) => ({ startMs, count: 0 }));
    expect(filled.map((bucket) => bucket.count)).toEqual([0, 0, 5, 0]);
    expect(filled.map((bucket) => bucket.startMs)).toEqual([0, 1, 2, 3].map((h) => at('2026-11-21T00:00:00Z') + h * hourMs));
  });
});

import { useMemo } from 'preact/hooks';
import type { TrendResponse } from '../api/api-types.js';
import { formatApdex, formatCount, formatDurationMs, formatDurationTicks } from '../format.js';
import { TimeSeriesChart, TimeSeriesChartPlaceholder } from './time-series-chart.js';

export const chartColors = { requests: '#2f6fdf', errors: '#d64545', p50: '#2a9d8f', p95: '#e9a23b', p99: '#9b5de5', apdex: '#3b7d4f' };

/** Each chart's series, named and coloured; their values come with the trend. */
const trendSeries = {
  throughput: [{ label: 'Requests', color: chartColors.requests }],
  errors: [{ label: 'Errors', color: chartColors.errors }],
  latency: [
    { label: 'p50', color: chartColors.p50 },
    { label: 'p95', color: chartColors.p95 },
    { label: 'p99', color: chartColors.p99 },
  ],
  apdex: [{ label: 'Apdex', color: chartColors.apdex }],
} as const;

const apdexTicks = (ticks: number[]) => ticks.map((tick) => (tick === 0 ? '0' : tick.toFixed(2)));

/** Throughput, errors, latency percentiles and (with `withApdex`) Apdex of one trend answer. */
export function TrendCharts({ trend, withApdex = false }: { trend: TrendResponse; withApdex?: boolean }) {
  const { times, throughput, errors, latency, apdex } = useMemo(() => {
    const buckets = trend.buckets;
    return {
      times: buckets.map((bucket) => Date.parse(bucket.start)),
      throughput: [{ ...trendSeries.throughput[0], values: buckets.map((bucket) => bucket.count) }],
      errors: [{ ...trendSeries.errors[0], values: buckets.map((bucket) => bucket.errorCount) }],
      latency: [
        { ...trendSeries.latency[0], values: buckets.map((bucket) => bucket.p50Ms), spanGaps: true },
        { ...trendSeries.latency[1], values: buckets.map((bucket) => bucket.p95Ms), spanGaps: true },
        { ...trendSeries.latency[2], values: buckets.map((bucket) => bucket.p99Ms), spanGaps: true },
      ],
      apdex: [{ ...trendSeries.apdex[0], values: buckets.map((bucket) => bucket.apdex), spanGaps: true }],
    };
  }, [trend]);
  return (
    <div class="chart-grid">
      <TimeSeriesChart title={`Throughput (requests per ${trend.interval})`} times={times} series={throughput} format={formatCount} integer />
      <TimeSeriesChart title={`Errors (per ${trend.interval})`} times={times} series={errors} format={formatCount} integer />
      <TimeSeriesChart title="Latency percentiles" times={times} series={latency} format={formatDurationMs} formatTicks={formatDurationTicks} />
      {withApdex ? <TimeSeriesChart title="Apdex" times={times} series={apdex} format={formatApdex} formatTicks={apdexTicks} /> : null}
    </div>
  );
}

/** Stands in for `TrendCharts` while the trend loads: the same grid of charts, each with its room. */
export function TrendChartsPlaceholder({ withApdex = false }: { withApdex?: boolean }) {
  return (
    <div class="chart-grid">
      <TimeSeriesChartPlaceholder title="Throughput" series={trendSeries.throughput} />
      <TimeSeriesChartPlaceholder title="Errors" series={trendSeries.errors} />
      <TimeSeriesChartPlaceholder title="Latency percentiles" series={trendSeries.latency} />
      {withApdex ? <TimeSeriesChartPlaceholder title="Apdex" series={trendSeries.apdex} /> : null}
    </div>
  );
}

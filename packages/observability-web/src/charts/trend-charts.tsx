import { useMemo } from 'preact/hooks';
import type { TrendResponse } from '../api/api-types.js';
import { formatApdex, formatCount, formatDurationMs, formatDurationTicks } from '../format.js';
import { TimeSeriesChart } from './time-series-chart.js';

export const chartColors = { requests: '#2f6fdf', errors: '#d64545', p50: '#2a9d8f', p95: '#e9a23b', p99: '#9b5de5', apdex: '#3b7d4f' };

const apdexTicks = (ticks: number[]) => ticks.map((tick) => (tick === 0 ? '0' : tick.toFixed(2)));

/** Throughput, errors, latency percentiles and (with `withApdex`) Apdex of one trend answer. */
export function TrendCharts({ trend, withApdex = false }: { trend: TrendResponse; withApdex?: boolean }) {
  const { times, throughput, errors, latency, apdex } = useMemo(() => {
    const buckets = trend.buckets;
    return {
      times: buckets.map((bucket) => Date.parse(bucket.start)),
      throughput: [{ label: 'Requests', values: buckets.map((bucket) => bucket.count), color: chartColors.requests }],
      errors: [{ label: 'Errors', values: buckets.map((bucket) => bucket.errorCount), color: chartColors.errors }],
      latency: [
        { label: 'p50', values: buckets.map((bucket) => bucket.p50Ms), color: chartColors.p50, spanGaps: true },
        { label: 'p95', values: buckets.map((bucket) => bucket.p95Ms), color: chartColors.p95, spanGaps: true },
        { label: 'p99', values: buckets.map((bucket) => bucket.p99Ms), color: chartColors.p99, spanGaps: true },
      ],
      apdex: [{ label: 'Apdex', values: buckets.map((bucket) => bucket.apdex), color: chartColors.apdex, spanGaps: true }],
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

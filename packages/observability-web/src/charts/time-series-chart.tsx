import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface ChartSeries {
  label: string;
  values: ReadonlyArray<number | null>;
  color: string;
  /** Join the line across buckets without a value (latency where nothing ran) instead of breaking it. */
  spanGaps?: boolean;
}

interface TimeSeriesChartProps {
  title: string;
  /** Bucket starts, epoch milliseconds. */
  times: readonly number[];
  series: readonly ChartSeries[];
  /** Formats a y value for the axis and the legend. */
  format: (value: number) => string;
  height?: number;
}

/** A time-series line chart (uPlot): resizes with its container, UTC axis, legend on hover. */
export function TimeSeriesChart({ title, times, series, format, height = 220 }: TimeSeriesChartProps) {
  const container = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const element = container.current;
    if (!element) return undefined;
    const data: uPlot.AlignedData = [times.map((ms) => ms / 1000), ...series.map((entry) => entry.values.map((value) => value))];
    const options: uPlot.Options = {
      width: Math.max(element.clientWidth, 200),
      height,
      tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC'),
      cursor: { drag: { x: false, y: false } },
      legend: { live: true },
      scales: { x: { time: true }, y: { range: (_u, min, max) => [Math.min(0, min), max > 0 ? max * 1.1 : 1] } },
      axes: [
        { stroke: '#5b6573', grid: { stroke: '#eef1f4' } },
        { stroke: '#5b6573', grid: { stroke: '#eef1f4' }, size: 70, values: (_u, ticks) => ticks.map((tick) => format(tick)) },
      ],
      series: [
        { label: 'Time (UTC)' },
        ...series.map((entry) => ({
          label: entry.label,
          stroke: entry.color,
          width: 1.5,
          spanGaps: entry.spanGaps ?? false,
          points: { show: times.length < 60 },
          value: (_u: uPlot, value: number | null) => (value === null ? '–' : format(value)),
        })),
      ],
    };
    const chart = new uPlot(options, data, element);
    const observer = new ResizeObserver(() => chart.setSize({ width: Math.max(element.clientWidth, 200), height }));
    observer.observe(element);
    return () => {
      observer.disconnect();
      chart.destroy();
    };
  }, [times, series, height, format]);

  return (
    <figure class="chart">
      <figcaption class="chart-title">{title}</figcaption>
      <div ref={container} class="chart-canvas" role="img" aria-label={`${title} chart`} />
    </figure>
  );
}

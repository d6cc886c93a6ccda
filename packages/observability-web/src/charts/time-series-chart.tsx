import { useLayoutEffect, useRef } from 'preact/hooks';
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
  /** Formats a y value for the legend (and, without `formatTicks`, the axis). */
  format: (value: number) => string;
  /** Formats the y axis's ticks together (so they share a unit and precision). */
  formatTicks?: (ticks: number[]) => string[];
  /** Whole counts: the y axis never ticks between integers. */
  integer?: boolean;
  height?: number;
}

/** A chart's height in pixels (plot and axes; the legend comes below), unless it asks for another. */
export const chartHeight = 220;
/** Width of a series' line. */
const lineWidth = 1.5;
/** Border of a legend marker: uPlot's default (`legend.markers.width`), drawn alike by the placeholder. */
const legendMarkerBorder = 2;
/** What the legend calls the x values. */
const timeLabel = 'Time (UTC)';

// uPlot's default steps include fractions; counts of requests have none.
const integerSteps = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6, 2e6, 5e6, 1e7, 2e7, 5e7, 1e8, 1e9];
/** Below this many values a series also marks its points, so a lone bucket is not invisible. */
const pointsShownBelow = 30;

/** The last value a series has (latency is null in buckets where nothing ran), or null. */
function latestValue(values: ReadonlyArray<number | null>): number | null {
  for (let index = values.length - 1; index >= 0; index -= 1) if (values[index] !== null) return values[index]!;
  return null;
}

const legendTime = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace('T', ' ');

/**
 * A time-series line chart (uPlot): resizes with its container, UTC axis. The legend shows the
 * values under the cursor, and the latest values while the cursor is elsewhere.
 */
export function TimeSeriesChart({ title, times, series, format, formatTicks, integer = false, height = chartHeight }: TimeSeriesChartProps) {
  const container = useRef<HTMLDivElement>(null);

  // Drawn in the same commit as the page around it (not after the first paint, as `useEffect` would):
  // otherwise whatever sits below the chart shows first where the chart goes, then jumps down.
  useLayoutEffect(() => {
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
        {
          stroke: '#5b6573',
          grid: { stroke: '#eef1f4' },
          size: 70,
          ...(integer ? { incrs: integerSteps } : {}),
          values: (_u, ticks) => (formatTicks ? formatTicks(ticks) : ticks.map((tick) => format(tick))),
        },
      ],
      series: [
        {
          label: timeLabel,
          value: (_u: uPlot, seconds: number | null, _s: number, index: number | null) =>
            index === null ? (times.length > 0 ? `${legendTime(times[times.length - 1]!)} (latest)` : '–') : seconds === null ? '–' : legendTime(seconds * 1000),
        },
        ...series.map((entry) => {
          const latest = latestValue(entry.values);
          return {
            label: entry.label,
            stroke: entry.color,
            width: lineWidth,
            spanGaps: entry.spanGaps ?? false,
            points: { show: entry.values.filter((value) => value !== null).length < pointsShownBelow },
            value: (_u: uPlot, value: number | null, _s: number, index: number | null) => {
              const shown = index === null ? latest : value;
              return shown === null ? '–' : format(shown);
            },
          };
        }),
      ],
    };
    const chart = new uPlot(options, data, element);
    const observer = new ResizeObserver(() => chart.setSize({ width: Math.max(element.clientWidth, 200), height }));
    observer.observe(element);
    return () => {
      observer.disconnect();
      chart.destroy();
    };
  }, [times, series, height, format, formatTicks, integer]);

  return (
    <figure class="chart">
      <figcaption class="chart-title">{title}</figcaption>
      <div ref={container} class="chart-canvas" role="img" aria-label={`${title} chart`} />
    </figure>
  );
}

/**
 * Stands in for a chart while its data loads: the same frame, caption line, plot height and legend
 * (the series' names, no values; uPlot's legend classes), so whatever sits below the chart (loaded
 * separately) does not move when the chart arrives.
 */
export function TimeSeriesChartPlaceholder({ title, series, height = chartHeight }: { title: string; series: ReadonlyArray<Pick<ChartSeries, 'label' | 'color'>>; height?: number }) {
  return (
    <figure class="chart" aria-busy="true">
      <figcaption class="chart-title">
        {title} <span class="muted">(loading…)</span>
      </figcaption>
      <div class="chart-canvas">
        <div class="uplot chart-placeholder">
          <div class="u-wrap chart-loading" style={{ height: `${height}px` }} role="status" aria-live="polite">
            Loading…
          </div>
          <table class="u-legend u-inline u-live" aria-hidden="true">
            <tbody>
              {[{ label: timeLabel, color: undefined }, ...series].map((entry) => (
                <tr class="u-series" key={entry.label}>
                  <th>
                    <div class="u-marker" style={entry.color ? { border: `${legendMarkerBorder}px solid ${entry.color}` } : undefined} />
                    <div class="u-label">{entry.label}</div>
                  </th>
                  <td class="u-value">–</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </div>
    </figure>
  );
}

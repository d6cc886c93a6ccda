import type { LogTrendResponse } from '../api/api-types.js';
import { formatCount, formatTimestamp } from '../format.js';
import { severityColors, severityOrder } from '../components/severity-badge.js';
import { HistogramPlaceholder } from './histogram-placeholder.js';

const width = 1000;
const height = 140;
const axisHeight = 18;
const gap = 1;

/** Round tick values for a count axis: 0 and the largest power-of-ten multiple that fits. */
function topTick(max: number): number {
  if (max <= 1) return 1;
  const step = 10 ** Math.floor(Math.log10(max));
  return Math.ceil(max / step) * step;
}

/**
 * Log records per time bucket as stacked bars, one colour per severity (most severe on top), with
 * the bucket's counts on hover. Drawn as SVG: a bar per bucket needs no charting library.
 */
export function SeverityHistogram({ trend }: { trend: LogTrendResponse }) {
  const buckets = trend.buckets;
  const max = topTick(Math.max(0, ...buckets.map((bucket) => bucket.total)));
  const barWidth = width / Math.max(buckets.length, 1);
  const plotHeight = height - axisHeight;
  const total = buckets.reduce((sum, bucket) => sum + bucket.total, 0);
  const present = severityOrder.filter((name) => buckets.some((bucket) => bucket.counts[name] > 0));
  const labels = buckets.length > 1 ? [0, Math.floor(buckets.length / 2), buckets.length - 1] : [0];
  return (
    <figure class="chart log-histogram">
      <figcaption class="chart-title">
        {formatCount(total)} log {total === 1 ? 'record' : 'records'} <span class="muted">(per {trend.interval})</span>
        <span class="legend histogram-legend">
          {present.map((name) => (
            <span class="legend-item" key={name}>
              <span class="legend-swatch" style={{ background: severityColors[name] }} />
              {name}
            </span>
          ))}
        </span>
      </figcaption>
      <svg class="histogram" viewBox={`0 0 ${width} ${height}`} preserveAspectRatio="none" role="img" aria-label="Log records per time bucket by severity">
        <line x1={0} x2={width} y1={plotHeight} y2={plotHeight} class="histogram-axis" />
        {buckets.map((bucket, index) => {
          let top = plotHeight;
          const title = `${formatTimestamp(bucket.start)} UTC: ${formatCount(bucket.total)}${severityOrder
            .filter((name) => bucket.counts[name] > 0)
            .map((name) => `, ${name} ${formatCount(bucket.counts[name])}`)
            .join('')}`;
          return (
            <g key={bucket.start}>
              <title>{title}</title>
              <rect x={index * barWidth} y={0} width={barWidth} height={plotHeight} class="histogram-hover" />
              {[...severityOrder].reverse().map((name) => {
                const count = bucket.counts[name];
                if (count === 0) return null;
                const barHeight = Math.max((count / max) * plotHeight, 1);
                top -= barHeight;
                return <rect key={name} x={index * barWidth + gap / 2} y={top} width={Math.max(barWidth - gap, 0.5)} height={barHeight} fill={severityColors[name]} />;
              })}
            </g>
          );
        })}
      </svg>
      <div class="histogram-scale muted">
        {labels.map((index) => (
          <span key={index}>{formatTimestamp(buckets[index]?.start).slice(5, 16)}</span>
        ))}
        <span class="histogram-max">max {formatCount(max)}</span>
      </div>
    </figure>
  );
}

/** Stands in for the histogram while its data loads, in its room (the log lines below load separately). */
export function SeverityHistogramPlaceholder() {
  return <HistogramPlaceholder class="log-histogram" caption="Log records" legend />;
}

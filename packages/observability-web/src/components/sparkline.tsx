/** A tiny inline trend (SVG), for table rows where a full chart would be too heavy. */
export function Sparkline({ values, width = 120, height = 28, label }: { values: readonly number[]; width?: number; height?: number; label: string }) {
  if (values.length < 2) return <svg class="sparkline" width={width} height={height} role="img" aria-label={`${label}: not enough data`} />;
  const max = Math.max(...values, 1e-9);
  const step = width / (values.length - 1);
  const points = values.map((value, i) => `${(i * step).toFixed(1)},${(height - 2 - (value / max) * (height - 4)).toFixed(1)}`).join(' ');
  return (
    <svg class="sparkline" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={label}>
      <polyline points={`0,${height} ${points} ${width},${height}`} class="sparkline-area" />
      <polyline points={points} class="sparkline-line" />
    </svg>
  );
}

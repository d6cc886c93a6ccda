/**
 * A watched value over time against its threshold (SVG): the value as a line (gaps where there
 * was no data), the threshold dashed, and the minutes the rule was firing shaded.
 */
export function ThresholdSparkline({
  points,
  threshold,
  firing = [],
  width = 160,
  height = 32,
  label,
}: {
  points: ReadonlyArray<{ minute: string; value: number | null }>;
  threshold: number;
  firing?: ReadonlyArray<{ from: string; to: string | null }>;
  width?: number;
  height?: number;
  label: string;
}) {
  if (points.length < 2) return <svg class="sparkline" width={width} height={height} role="img" aria-label={`${label}: not enough data`} />;
  const values = points.map((point) => point.value).filter((value): value is number => value !== null);
  const max = Math.max(threshold, ...values, 1e-9) * 1.1;
  const min = Math.min(0, threshold, ...values);
  const y = (value: number) => (height - 2 - ((value - min) / (max - min)) * (height - 4)).toFixed(1);
  const step = width / (points.length - 1);
  const first = Date.parse(points[0]!.minute);
  const span = Date.parse(points.at(-1)!.minute) - first || 1;
  const x = (iso: string | null) => (((iso === null ? span : Date.parse(iso) - first) / span) * width).toFixed(1);
  const segments: string[] = [];
  let current: string[] = [];
  points.forEach((point, i) => {
    if (point.value === null) {
      if (current.length > 0) segments.push(current.join(' '));
      current = [];
    } else current.push(`${(i * step).toFixed(1)},${y(point.value)}`);
  });
  if (current.length > 0) segments.push(current.join(' '));
  return (
    <svg class="sparkline threshold-sparkline" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={label}>
      {firing.map((stretch) => (
        <rect key={stretch.from} class="sparkline-firing" x={x(stretch.from)} y={0} width={Math.max(1, Number(x(stretch.to)) - Number(x(stretch.from)))} height={height} />
      ))}
      <line class="sparkline-threshold" x1={0} x2={width} y1={y(threshold)} y2={y(threshold)} />
      {segments.map((segment) => (segment.includes(' ') ? <polyline key={segment} points={segment} class="sparkline-line" /> : null))}
    </svg>
  );
}

/** Display formatting shared by the pages; all pure. */

const integerFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

export function formatCount(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  return integerFormat.format(value);
}

/** Milliseconds with a precision that suits their size: 0.42 ms, 12.3 ms, 250 ms, 1.52 s, 2.1 min. */
export function formatDurationMs(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  if (value < 1) return `${value.toFixed(2)} ms`;
  if (value < 100) return `${value.toFixed(1)} ms`;
  if (value < 1_000) return `${value.toFixed(0)} ms`;
  if (value < 60_000) return `${(value / 1_000).toFixed(2)} s`;
  return `${(value / 60_000).toFixed(1)} min`;
}

const durationUnits = [
  { limitMs: 60_000, divisor: 60_000, unit: 'min' },
  { limitMs: 1_000, divisor: 1_000, unit: 's' },
  { limitMs: 0, divisor: 1, unit: 'ms' },
] as const;

/**
 * Labels for a latency axis: one unit for the whole axis (chosen by its largest tick), as many
 * decimals as the step between ticks needs, and a bare `0` for zero.
 */
export function formatDurationTicks(ticks: readonly number[]): string[] {
  const largest = Math.max(0, ...ticks.map(Math.abs));
  const { divisor, unit } = durationUnits.find((candidate) => largest >= candidate.limitMs)!;
  const steps = ticks.slice(1).map((tick, index) => Math.abs(tick - ticks[index]!)).filter((step) => step > 0);
  const step = (steps.length > 0 ? Math.min(...steps) : largest || 1) / divisor;
  const decimals = Math.min(3, Math.max(0, -Math.floor(Math.log10(step) + 1e-9)));
  return ticks.map((tick) => (tick === 0 ? '0' : `${(tick / divisor).toFixed(decimals)} ${unit}`));
}

/** An Apdex score (0..1) with two decimals. */
export function formatApdex(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  return value.toFixed(2);
}

/** Apdex's conventional rating of a score. */
export function apdexRating(value: number | null | undefined): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (value >= 0.94) return 'excellent';
  if (value >= 0.85) return 'good';
  if (value >= 0.7) return 'fair';
  if (value >= 0.5) return 'poor';
  return 'unacceptable';
}

/** A fraction (0..1) as a percentage. */
export function formatPercent(fraction: number | null | undefined): string {
  if (fraction === null || fraction === undefined || !Number.isFinite(fraction)) return '–';
  const percent = fraction * 100;
  if (percent === 0) return '0%';
  if (percent < 0.1) return '<0.1%';
  return `${percent < 10 ? percent.toFixed(1) : percent.toFixed(0)}%`;
}

/** Requests per minute, given a count over a range. */
export function formatRate(perMinute: number | null | undefined): string {
  if (perMinute === null || perMinute === undefined || !Number.isFinite(perMinute)) return '–';
  if (perMinute === 0) return '0/min';
  if (perMinute < 0.1) return '<0.1/min';
  return `${perMinute < 10 ? perMinute.toFixed(1) : integerFormat.format(perMinute)}/min`;
}

/** An ISO timestamp as `YYYY-MM-DD HH:MM:SS.mmm` in UTC; the service stores and compares in UTC. */
export function formatTimestamp(iso: string | null | undefined): string {
  if (!iso) return '–';
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

export function formatBytes(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let scaled = value;
  let unit = 0;
  while (scaled >= 1024 && unit < units.length - 1) {
    scaled /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? scaled.toFixed(0) : scaled.toFixed(1)} ${units[unit]}`;
}

/** How long ago an ISO timestamp was, in the largest whole unit: `just now`, `5 min ago`, `3 h ago`, `2 d ago`. */
export function formatAgo(iso: string | null | undefined, nowMs = Date.now()): string {
  if (!iso) return '–';
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  const seconds = Math.max(0, Math.round((nowMs - ms) / 1000));
  if (seconds < 60) return 'just now';
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`;
  return `${Math.floor(seconds / 86_400)} d ago`;
}

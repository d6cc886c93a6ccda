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

/**
 * The global view state every page honours: a time range (a preset relative to now, or a custom
 * absolute range) and the service / environment filters. It lives in the URL's query string so a
 * view can be shared by link; this module converts between the two and knows nothing of the DOM.
 */

export const rangePresets = [
  { key: '15m', label: 'Last 15 minutes', durationMs: 15 * 60_000 },
  { key: '1h', label: 'Last hour', durationMs: 60 * 60_000 },
  { key: '6h', label: 'Last 6 hours', durationMs: 6 * 60 * 60_000 },
  { key: '24h', label: 'Last 24 hours', durationMs: 24 * 60 * 60_000 },
  { key: '7d', label: 'Last 7 days', durationMs: 7 * 24 * 60 * 60_000 },
  { key: '30d', label: 'Last 30 days', durationMs: 30 * 24 * 60 * 60_000 },
] as const;

export type RangePresetKey = (typeof rangePresets)[number]['key'];
const defaultPreset: RangePresetKey = '24h';

export type TimeRange = { kind: 'preset'; preset: RangePresetKey } | { kind: 'custom'; fromMs: number; toMs: number };

export interface GlobalFilters {
  range: TimeRange;
  service: string | undefined;
  environment: string | undefined;
}

/** The query-string names the global state uses; pages must not reuse them for other things. */
const globalParamNames = ['range', 'from', 'to', 'service', 'environment'] as const;

function presetByKey(key: string | null): (typeof rangePresets)[number] | undefined {
  return rangePresets.find((preset) => preset.key === key);
}

function parseInstant(value: string | null): number | undefined {
  if (!value) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

function nonEmpty(value: string | null): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/**
 * Reads the global filters from a query string. A valid custom `from`/`to` pair wins over a
 * preset; anything unreadable falls back to the default (last 24 hours) rather than failing.
 */
export function readGlobalFilters(search: URLSearchParams): GlobalFilters {
  const fromMs = parseInstant(search.get('from'));
  const toMs = parseInstant(search.get('to'));
  let range: TimeRange;
  if (fromMs !== undefined && toMs !== undefined && fromMs <= toMs) range = { kind: 'custom', fromMs, toMs };
  else range = { kind: 'preset', preset: presetByKey(search.get('range'))?.key ?? defaultPreset };
  return { range, service: nonEmpty(search.get('service')), environment: nonEmpty(search.get('environment')) };
}

/** Writes the global filters into a copy of `search`, leaving the page's own parameters alone. */
export function writeGlobalFilters(search: URLSearchParams, filters: GlobalFilters): URLSearchParams {
  const next = new URLSearchParams(search);
  for (const name of globalParamNames) next.delete(name);
  if (filters.range.kind === 'custom') {
    next.set('from', new Date(filters.range.fromMs).toISOString());
    next.set('to', new Date(filters.range.toMs).toISOString());
  } else if (filters.range.preset !== defaultPreset) {
    next.set('range', filters.range.preset);
  }
  if (filters.service) next.set('service', filters.service);
  if (filters.environment) next.set('environment', filters.environment);
  return next;
}

/** Only the global parameters of `search`, for links that should carry the view along. */
export function globalOnly(search: URLSearchParams): URLSearchParams {
  return writeGlobalFilters(new URLSearchParams(), readGlobalFilters(search));
}

/** The absolute range a time range covers at `nowMs`. */
export function resolveRange(range: TimeRange, nowMs: number): { fromMs: number; toMs: number } {
  if (range.kind === 'custom') return { fromMs: range.fromMs, toMs: range.toMs };
  const preset = presetByKey(range.preset) ?? presetByKey(defaultPreset)!;
  return { fromMs: nowMs - preset.durationMs, toMs: nowMs };
}

/** The parameters every read endpoint takes: `from`, `to`, and the filters that are set. */
export function apiQueryFor(filters: GlobalFilters, nowMs: number): Record<string, string> {
  const { fromMs, toMs } = resolveRange(filters.range, nowMs);
  const query: Record<string, string> = { from: new Date(fromMs).toISOString(), to: new Date(toMs).toISOString() };
  if (filters.service) query.service = filters.service;
  if (filters.environment) query.environment = filters.environment;
  return query;
}

/** A short human description of a range, for the picker's button. */
export function describeRange(range: TimeRange): string {
  if (range.kind === 'preset') return presetByKey(range.preset)?.label ?? range.preset;
  const format = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
  return `${format(range.fromMs)} – ${format(range.toMs)} UTC`;
}

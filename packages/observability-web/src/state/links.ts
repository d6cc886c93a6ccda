import { globalOnly } from './global-filters.js';

/**
 * `path` with the query string `base` gives, `change` applied: a value sets its parameter, an
 * undefined or empty one removes it. No `?` when no parameter is left.
 */
export function withParams(path: string, base: URLSearchParams, change: Record<string, string | undefined>): string {
  const params = new URLSearchParams(base);
  for (const [name, value] of Object.entries(change)) {
    if (value === undefined || value === '') params.delete(name);
    else params.set(name, value);
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/**
 * A link to `path` that carries the current time range and filters along, plus `extra`
 * parameters of the target page, so navigating keeps the view the user chose.
 */
export function hrefWithView(path: string, extra: Record<string, string | undefined> = {}, search = new URLSearchParams(window.location.search)): string {
  return withParams(path, globalOnly(search), extra);
}

/** The path of a service's page. */
export function serviceHref(name: string): string {
  return `/services/${encodeURIComponent(name)}`;
}

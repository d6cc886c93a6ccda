import { globalOnly } from './global-filters.js';

/**
 * A link to `path` that carries the current time range and filters along, plus `extra`
 * parameters of the target page, so navigating keeps the view the user chose.
 */
export function hrefWithView(path: string, extra: Record<string, string | undefined> = {}, search = new URLSearchParams(window.location.search)): string {
  const params = globalOnly(search);
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined || value === '') params.delete(name);
    else params.set(name, value);
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

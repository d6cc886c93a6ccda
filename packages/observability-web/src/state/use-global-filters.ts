import { useCallback, useMemo } from 'preact/hooks';
import { apiQueryFor, readGlobalFilters, writeGlobalFilters, type GlobalFilters } from './global-filters.js';
import { navigate, useLocation } from './location.js';
import { useRefreshTick } from './refresh.js';

export interface GlobalFiltersHandle {
  filters: GlobalFilters;
  /** `from`, `to`, `service`, `environment` for the read API, resolved when the view last changed. */
  apiQuery: Record<string, string>;
  update: (change: Partial<GlobalFilters>) => void;
}

let anchor: { view: string; nowMs: number } | undefined;

/**
 * "Now" for relative ranges ("last hour"): taken afresh when the view (path, query, refresh)
 * changes and shared by every panel of it, so they all ask for exactly the same range (and
 * identical requests can be shared).
 */
function anchoredNow(view: string): number {
  if (anchor?.view !== view) anchor = { view, nowMs: Date.now() };
  return anchor.nowMs;
}

/** The URL-held time range and filters, and a way to change them (which updates the URL). */
export function useGlobalFilters(): GlobalFiltersHandle {
  const location = useLocation();
  const searchText = location.search.toString();
  const tick = useRefreshTick();
  const filters = useMemo(() => readGlobalFilters(new URLSearchParams(searchText)), [searchText]);
  const view = `${location.pathname}?${searchText}#${tick}`;
  const apiQuery = useMemo(() => apiQueryFor(filters, anchoredNow(view)), [filters, view]);
  const update = useCallback(
    (change: Partial<GlobalFilters>) => {
      const search = new URLSearchParams(window.location.search);
      const next = writeGlobalFilters(search, { ...readGlobalFilters(search), ...change });
      // A new view starts on the first page of any list.
      next.delete('offset');
      const text = next.toString();
      navigate(`${window.location.pathname}${text ? `?${text}` : ''}`);
    },
    [],
  );
  return { filters, apiQuery, update };
}

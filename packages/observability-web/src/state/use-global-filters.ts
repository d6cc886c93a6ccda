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

/** The URL-held time range and filters, and a way to change them (which updates the URL). */
export function useGlobalFilters(): GlobalFiltersHandle {
  const location = useLocation();
  const searchText = location.search.toString();
  const tick = useRefreshTick();
  const filters = useMemo(() => readGlobalFilters(new URLSearchParams(searchText)), [searchText]);
  // A preset ("last hour") is re-anchored to now whenever the view changes or is refreshed,
  // and stays fixed in between so every panel of a page asks for the same range.
  const apiQuery = useMemo(() => apiQueryFor(filters, Date.now()), [filters, tick]);
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

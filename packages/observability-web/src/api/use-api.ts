import { useCallback, useEffect, useState } from 'preact/hooks';
import { useRefreshTick } from '../state/refresh.js';
import { ApiRequestError, apiGet, apiUrl, type Query } from './api-client.js';

export interface ApiState<T> {
  data: T | undefined;
  error: ApiRequestError | Error | undefined;
  loading: boolean;
  reload: () => void;
}

/**
 * Loads `path` with `query` and reloads whenever either changes or the user presses Refresh; a
 * superseded request is aborted so a slow answer can never overwrite a newer one. `path` null
 * loads nothing.
 */
export function useApi<T>(path: string | null, query: Query = {}): ApiState<T> {
  const url = path === null ? null : apiUrl(path, query);
  const [state, setState] = useState<{ url: string | null; data: T | undefined; error: Error | undefined; loading: boolean }>({
    url: null,
    data: undefined,
    error: undefined,
    loading: path !== null,
  });
  const [generation, setGeneration] = useState(0);
  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  const tick = useRefreshTick();

  useEffect(() => {
    if (url === null) return undefined;
    const controller = new AbortController();
    setState((previous) => ({ ...previous, url, loading: true, error: undefined }));
    apiGet<T>(url, {}, controller.signal).then(
      (data) => {
        if (!controller.signal.aborted) setState({ url, data, error: undefined, loading: false });
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        setState((previous) => ({ ...previous, url, error: error instanceof Error ? error : new Error(String(error)), loading: false }));
      },
    );
    return () => controller.abort();
  }, [url, generation, tick]);

  // Data from an older URL stays on screen while the new one loads (no flicker), but is
  // never shown with an error of the new one.
  return { data: state.error ? undefined : state.data, error: state.error, loading: state.loading || state.url !== url, reload };
}

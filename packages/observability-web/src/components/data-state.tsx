import type { ComponentChildren } from 'preact';
import { ApiRequestError } from '../api/api-client.js';
import type { ApiState } from '../api/use-api.js';

/**
 * Renders `children(data)` once loaded, with a visible loading state and a readable error. `loading`
 * replaces the default "Loading…" box: give one the size of what replaces it where content below
 * it is already on screen, so that content does not move when the data arrives.
 */
export function DataState<T>({
  state,
  children,
  empty,
  emptyMessage,
  loading,
}: {
  state: ApiState<T>;
  children: (data: T) => ComponentChildren;
  empty?: (data: T) => boolean;
  emptyMessage?: ComponentChildren;
  loading?: ComponentChildren;
}) {
  if (state.error) return <ErrorNotice error={state.error} onRetry={state.reload} />;
  if (state.data === undefined)
    return (
      loading ?? (
        <div class="loading" role="status" aria-live="polite">
          Loading…
        </div>
      )
    );
  if (empty?.(state.data)) return <div class="empty">{emptyMessage ?? 'No data in this range. Widen the time range or clear the filters.'}</div>;
  return <div class={state.loading ? 'stale' : undefined} aria-busy={state.loading}>{children(state.data)}</div>;
}

function ErrorNotice({ error, onRetry }: { error: Error; onRetry?: () => void }) {
  const requestId = error instanceof ApiRequestError ? error.requestId : undefined;
  return (
    <div class="notice notice-error" role="alert">
      <span>{error.message}</span>
      {requestId ? <span class="muted"> (request {requestId})</span> : null}
      {onRetry ? (
        <button type="button" class="button-link" onClick={onRetry}>
          Retry
        </button>
      ) : null}
    </div>
  );
}

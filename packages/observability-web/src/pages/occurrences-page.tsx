import type { OccurrencesResponse } from '../api/api-types.js';
import { useApi } from '../api/use-api.js';
import { DataState } from '../components/data-state.js';
import { Layout } from '../components/layout.js';
import { Link } from '../components/link.js';
import { StatusBadge } from '../components/status-badge.js';
import { formatCount, formatDurationMs, formatTimestamp } from '../format.js';
import { useEditableCopy } from '../state/editable-copy.js';
import { hrefWithView, withParams } from '../state/links.js';
import { navigate, useLocation } from '../state/location.js';
import { useGlobalFilters } from '../state/use-global-filters.js';

const pageSize = 50;

/** The occurrences of the view, newest first, filtered by operation and status, a page at a time. */
export function OccurrencesPage() {
  const { search } = useLocation();
  const { apiQuery } = useGlobalFilters();
  const operation = search.get('operation') ?? '';
  const status = search.get('status') ?? '';
  const offset = Math.max(0, Number.parseInt(search.get('offset') ?? '0', 10) || 0);
  const state = useApi<OccurrencesResponse>('/api/v1/occurrences', { ...apiQuery, operation, status, limit: pageSize, offset });
  const [operationText, setOperationText] = useEditableCopy(operation);
  /** This page with `change` applied to its query string. */
  const here = (change: Record<string, string | undefined>) => withParams('/occurrences', search, change);

  return (
    <Layout title="Occurrences">
      <form
        class="toolbar"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          navigate(here({ operation: operationText.trim(), offset: undefined }));
        }}
      >
        <label class="field-inline">
          Operation
          <input class="input" name="operation" placeholder="e.g. GET /checkout" value={operationText} onInput={(event) => setOperationText(event.currentTarget.value)} />
        </label>
        <label class="field-inline">
          Status
          <select name="status" value={status} onChange={(event) => navigate(here({ status: event.currentTarget.value, offset: undefined }))}>
            <option value="">Any</option>
            <option value="ok">ok</option>
            <option value="error">error</option>
          </select>
        </label>
        <button type="submit" class="button button-small">
          Apply
        </button>
      </form>
      <DataState state={state} empty={(data) => data.total === 0}>
        {(data) => (
          <>
            <div class="table-wrap">
              <table class="table table-clickable" aria-label="Occurrences">
                <thead>
                  <tr>
                    <th>Started (UTC)</th>
                    <th>Service</th>
                    <th>Operation</th>
                    <th>Kind</th>
                    <th>Status</th>
                    <th class="num">Duration</th>
                    <th>Environment</th>
                    <th>Tenant</th>
                  </tr>
                </thead>
                <tbody>
                  {data.items.map((item) => {
                    const href = hrefWithView(`/occurrences/${encodeURIComponent(item.id)}`);
                    return (
                      <tr key={item.id} onClick={(event) => (event.target as Element).closest('a') === null && navigate(href)}>
                        <td class="nowrap">
                          <Link href={href}>{formatTimestamp(item.startedAt)}</Link>
                        </td>
                        <td>{item.service}</td>
                        <td class="strong">{item.operation}</td>
                        <td>{item.kind}</td>
                        <td>
                          <StatusBadge status={item.status} />
                        </td>
                        <td class="num">{formatDurationMs(item.durationMs)}</td>
                        <td>{item.environment}</td>
                        <td>{item.tenantId ?? '–'}</td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
            <nav class="pager" aria-label="Pages">
              <span>
                {formatCount(data.total === 0 ? 0 : data.offset + 1)}–{formatCount(data.offset + data.items.length)} of {formatCount(data.total)}
              </span>
              <button type="button" class="button button-small" disabled={data.offset === 0} onClick={() => navigate(here({ offset: String(Math.max(0, data.offset - data.limit)) || undefined }))}>
                Newer
              </button>
              <button type="button" class="button button-small" disabled={data.offset + data.items.length >= data.total} onClick={() => navigate(here({ offset: String(data.offset + data.limit) }))}>
                Older
              </button>
            </nav>
          </>
        )}
      </DataState>
    </Layout>
  );
}

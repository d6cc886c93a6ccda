import { useEffect } from 'preact/hooks';
import type { LogsResponse, LogTrendResponse } from '../api/api-types.js';
import { useApi } from '../api/use-api.js';
import { SeverityHistogram, SeverityHistogramPlaceholder } from '../charts/severity-histogram.js';
import { DataState } from '../components/data-state.js';
import { Layout } from '../components/layout.js';
import { LogTable } from '../components/log-table.js';
import { useEditableCopy } from '../state/editable-copy.js';
import { withParams } from '../state/links.js';
import { navigate, useLocation } from '../state/location.js';
import { refreshAll } from '../state/refresh.js';
import { useGlobalFilters } from '../state/use-global-filters.js';
import { Pager } from '../components/pager.js';
import { ApplyButton, FilterInput } from '../components/filter-input.js';

const pageSize = 100;
/** How often live tail asks for the newest lines. */
export const liveTailIntervalMs = 2_000;
const severities = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;

/** The page's own query parameters (the global range and filters come along separately). */
function logFiltersOf(search: URLSearchParams): Record<string, string> {
  const filters: Record<string, string> = {};
  for (const name of ['q', 'severity', 'traceId']) {
    const value = search.get(name);
    if (value) filters[name] = value;
  }
  for (const [name, value] of search) if (name.startsWith('attr.') && value) filters[name] = value;
  return filters;
}

/** `key=value` of the first attribute filter, for the form. */
function attributeText(filters: Record<string, string>): string {
  const entry = Object.entries(filters).find(([name]) => name.startsWith('attr.'));
  return entry ? `${entry[0].slice('attr.'.length)}=${entry[1]}` : '';
}

/**
 * Log records of the view: a severity histogram over time, then the lines, newest first, a page
 * at a time (keyset cursor). Words, severity, trace and an attribute filter live in the URL, so a
 * search can be shared; live tail reloads the newest lines every few seconds.
 */
export function LogsPage() {
  const { search } = useLocation();
  const { apiQuery } = useGlobalFilters();
  const filters = logFiltersOf(search);
  const cursor = search.get('cursor') ?? undefined;
  const live = search.get('live') === '1' && cursor === undefined;
  const trend = useApi<LogTrendResponse>('/api/v1/logs/trend', { ...apiQuery, ...filters });
  const page = useApi<LogsResponse>('/api/v1/logs', { ...apiQuery, ...filters, limit: pageSize, cursor });
  const [text, setText] = useEditableCopy(filters.q ?? '');
  const [attribute, setAttribute] = useEditableCopy(attributeText(filters));
  useEffect(() => {
    if (!live) return undefined;
    const timer = setInterval(refreshAll, liveTailIntervalMs);
    return () => clearInterval(timer);
  }, [live]);

  /** This page with `change` applied; any change of filters starts again from the newest lines. */
  const here = (change: Record<string, string | undefined>) => withParams('/logs', search, { cursor: undefined, ...change });
  const applyForm = () => {
    const change: Record<string, string | undefined> = { q: text.trim() || undefined };
    for (const name of Object.keys(filters)) if (name.startsWith('attr.')) change[name] = undefined;
    const separator = attribute.indexOf('=');
    if (separator > 0) change[`attr.${attribute.slice(0, separator).trim()}`] = attribute.slice(separator + 1).trim();
    navigate(here(change));
  };

  return (
    <Layout title="Logs">
      <form
        class="toolbar"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          applyForm();
        }}
      >
        <FilterInput label="Search" grow name="q" type="search" placeholder="words in the message, e.g. timeout checkout" value={text} onInput={(event) => setText(event.currentTarget.value)} />
        <label class="field-inline">
          Severity
          <select name="severity" value={filters.severity ?? ''} onChange={(event) => navigate(here({ severity: event.currentTarget.value || undefined }))}>
            <option value="">Any</option>
            {severities.map((name) => (
              <option key={name} value={name}>
                {name} and above
              </option>
            ))}
          </select>
        </label>
        <FilterInput label="Attribute" narrow name="attribute" placeholder="key=value" value={attribute} onInput={(event) => setAttribute(event.currentTarget.value)} />
        <ApplyButton />
        <label class="field-inline live-toggle" title={`Reload the newest lines every ${liveTailIntervalMs / 1000} s`}>
          <input type="checkbox" name="live" checked={live} onChange={(event) => navigate(here({ live: event.currentTarget.checked ? '1' : undefined }))} />
          Live tail
        </label>
      </form>
      {filters.traceId ? (
        <p class="notice">
          <span>
            Lines of trace <code>{filters.traceId}</code>
          </span>
          <button type="button" class="button-link" onClick={() => navigate(here({ traceId: undefined }))}>
            Show all lines
          </button>
        </p>
      ) : null}
      {/* The lines below load separately: the placeholder takes the histogram's room. */}
      <DataState state={trend} loading={<SeverityHistogramPlaceholder />}>
        {(data) => <SeverityHistogram trend={data} />}
      </DataState>
      <DataState state={page} empty={(data) => data.items.length === 0} emptyMessage="No log lines match in this range. Widen the time range or clear the filters.">
        {(data) => (
          <>
            <LogTable items={data.items} label="Log lines" />
            <Pager
              toNewer={cursor === undefined ? undefined : () => navigate(here({}))}
              toOlder={data.nextCursor === null ? undefined : () => navigate(here({ cursor: data.nextCursor ?? undefined, live: undefined }))}
            >
              {live ? <span class="live-badge">Live: the newest {data.items.length === 1 ? 'line' : `${data.items.length} lines`}, reloaded every {liveTailIntervalMs / 1000} s</span> : null}
            </Pager>
          </>
        )}
      </DataState>
    </Layout>
  );
}

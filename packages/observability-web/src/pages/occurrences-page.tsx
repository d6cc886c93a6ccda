import { useState } from 'preact/hooks';
import type { OccurrenceDurationsResponse, OccurrencesResponse } from '../api/api-types.js';
import { DurationHistogram, DurationHistogramPlaceholder } from '../charts/duration-histogram.js';
import { NameOptions } from '../components/filter-selects.js';
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
import { Pager } from '../components/pager.js';
import { ApplyButton, FilterInput } from '../components/filter-input.js';

const pageSize = 50;
const attributePrefix = 'attr.';
const statusClasses = ['2xx', '3xx', '4xx', '5xx', '1xx'];

/** A `minDurationMs`/`maxDurationMs` value from the URL: a non-negative number, else none. */
function durationParam(text: string | null): number | undefined {
  if (text === null || text.trim() === '') return undefined;
  const value = Number(text);
  return Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** A duration bound as the URL holds it: whole microseconds at most. */
const durationText = (value: number) => String(Math.round(value * 1000) / 1000);

/**
 * The occurrences of the view, newest first, a page at a time, filtered by operation, status, error
 * type, HTTP status class, duration and attributes; every filter lives in the URL. Above the list,
 * the distribution of durations: dragging across it sets the duration filter.
 */
export function OccurrencesPage() {
  const { search } = useLocation();
  const { apiQuery } = useGlobalFilters();
  const operation = search.get('operation') ?? '';
  const status = search.get('status') ?? '';
  const errorType = search.get('errorType') ?? '';
  const httpStatusClass = search.get('httpStatusClass') ?? '';
  const minDurationMs = durationParam(search.get('minDurationMs'));
  const maxDurationMs = durationParam(search.get('maxDurationMs'));
  const attributes = [...search.entries()].filter(([name]) => name.startsWith(attributePrefix));
  const offset = Math.max(0, Number.parseInt(search.get('offset') ?? '0', 10) || 0);
  const filterQuery = { ...apiQuery, operation, status, errorType, httpStatusClass, ...Object.fromEntries(attributes) };
  const state = useApi<OccurrencesResponse>('/api/v1/occurrences', { ...filterQuery, minDurationMs, maxDurationMs, limit: pageSize, offset });
  const durations = useApi<OccurrenceDurationsResponse>('/api/v1/occurrences/durations', filterQuery);
  // What is typed is kept until the URL's value changes (a brush, a chip, a shared link).
  const fields = {
    operation: useEditableCopy(operation),
    errorType: useEditableCopy(errorType),
    min: useEditableCopy(minDurationMs === undefined ? '' : String(minDurationMs)),
    max: useEditableCopy(maxDurationMs === undefined ? '' : String(maxDurationMs)),
    attribute: useState(''),
  };
  const text = Object.fromEntries(Object.entries(fields).map(([name, [value]]) => [name, value])) as Record<keyof typeof fields, string>;
  const [attributeError, setAttributeError] = useState<string | undefined>();
  /** This page with `change` applied to its query string (and back to the first page). */
  const here = (change: Record<string, string | undefined>) => withParams('/occurrences', search, { ...change, offset: undefined });
  const edit = (name: keyof typeof fields) => (event: { currentTarget: HTMLInputElement }) => fields[name][1](event.currentTarget.value);

  function apply(event: Event) {
    event.preventDefault();
    const change: Record<string, string | undefined> = {
      operation: text.operation.trim(),
      errorType: text.errorType.trim(),
      minDurationMs: text.min.trim(),
      maxDurationMs: text.max.trim(),
    };
    const attribute = text.attribute.trim();
    if (attribute !== '') {
      const equals = attribute.indexOf('=');
      if (equals < 1) {
        setAttributeError('Write an attribute filter as key=value, e.g. region=eu-west.');
        return;
      }
      change[`${attributePrefix}${attribute.slice(0, equals).trim()}`] = attribute.slice(equals + 1).trim();
    }
    setAttributeError(undefined);
    fields.attribute[1]('');
    navigate(here(change));
  }

  return (
    <Layout title="Occurrences">
      <form class="toolbar" role="search" aria-label="Occurrence filters" onSubmit={apply}>
        <FilterInput label="Operation" name="operation" placeholder="e.g. GET /checkout" value={text.operation} onInput={edit('operation')} />
        <label class="field-inline">
          Status
          <select name="status" value={status} onChange={(event) => navigate(here({ status: event.currentTarget.value }))}>
            <option value="">Any</option>
            <option value="ok">ok</option>
            <option value="error">error</option>
          </select>
        </label>
        <label class="field-inline">
          HTTP class
          <select name="httpStatusClass" value={httpStatusClass} onChange={(event) => navigate(here({ httpStatusClass: event.currentTarget.value }))}>
            <option value="">Any</option>
            <NameOptions names={statusClasses} />
          </select>
        </label>
        <FilterInput label="Error type" narrow name="errorType" placeholder="e.g. TimeoutError" value={text.errorType} onInput={edit('errorType')} />
        <label class="field-inline">
          Duration (ms)
          <input class="input input-number" name="minDurationMs" type="number" min="0" step="any" placeholder="min" aria-label="Minimum duration (ms)" value={text.min} onInput={edit('min')} />
          –
          <input class="input input-number" name="maxDurationMs" type="number" min="0" step="any" placeholder="max" aria-label="Maximum duration (ms)" value={text.max} onInput={edit('max')} />
        </label>
        <FilterInput label="Attribute" narrow name="attribute" placeholder="key=value" value={text.attribute} onInput={edit('attribute')} aria-invalid={attributeError !== undefined} />
        <ApplyButton />
        {attributes.length > 0 || minDurationMs !== undefined || maxDurationMs !== undefined ? (
          <span class="attribute-chips" aria-label="Active filters">
            {attributes.map(([name, value]) => (
              <span class="chip" key={name}>
                {name.slice(attributePrefix.length)}={value}
                <button type="button" aria-label={`Remove ${name.slice(attributePrefix.length)}=${value}`} onClick={() => navigate(here({ [name]: undefined }))}>
                  ×
                </button>
              </span>
            ))}
            {minDurationMs !== undefined || maxDurationMs !== undefined ? (
              <span class="chip">
                {minDurationMs !== undefined ? formatDurationMs(minDurationMs) : '0'} – {maxDurationMs !== undefined ? formatDurationMs(maxDurationMs) : '∞'}
                <button type="button" aria-label="Remove the duration filter" onClick={() => navigate(here({ minDurationMs: undefined, maxDurationMs: undefined }))}>
                  ×
                </button>
              </span>
            ) : null}
          </span>
        ) : null}
      </form>
      {attributeError ? (
        <p class="notice notice-error" role="alert">
          {attributeError}
        </p>
      ) : null}
      {/* The list and its pager sit below the histogram: its placeholder takes the histogram's room. */}
      <DataState state={durations} loading={<DurationHistogramPlaceholder />}>
        {(data) => (
          <DurationHistogram
            durations={data}
            selected={{ minMs: minDurationMs, maxMs: maxDurationMs }}
            choose={({ minMs, maxMs }) => navigate(here({ minDurationMs: durationText(minMs), maxDurationMs: durationText(maxMs) }))}
          />
        )}
      </DataState>
      {state.data?.search?.limited ? (
        <p class="notice" role="status">
          Searched the newest {formatCount(state.data.search.window)} occurrences of the range (since {formatTimestamp(state.data.search.searchedFrom)} UTC). Narrow the range or choose a service or operation to search further back.
        </p>
      ) : null}
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
            <Pager
              newerLabel="Newer"
              toNewer={data.offset === 0 ? undefined : () => navigate(withParams('/occurrences', search, { offset: String(Math.max(0, data.offset - data.limit)) || undefined }))}
              toOlder={data.offset + data.items.length >= data.total ? undefined : () => navigate(withParams('/occurrences', search, { offset: String(data.offset + data.limit) }))}
            >
              <span>
                {formatCount(data.total === 0 ? 0 : data.offset + 1)}–{formatCount(data.offset + data.items.length)} of {formatCount(data.total)}
              </span>
            </Pager>
          </>
        )}
      </DataState>
    </Layout>
  );
}

import { useMemo } from 'preact/hooks';
import type { ServiceRow, ServicesResponse, TrendResponse } from '../api/api-types.js';
import { useApi } from '../api/use-api.js';
import { DataState } from '../components/data-state.js';
import { Layout } from '../components/layout.js';
import { Link } from '../components/link.js';
import { Sparkline } from '../components/sparkline.js';
import { formatApdex, formatCount, formatDurationMs, formatPercent, formatRate } from '../format.js';
import { isHighErrorRate } from '../state/error-rate.js';
import { hrefWithView, serviceHref, withParams } from '../state/links.js';
import { perMinute } from '../state/rates.js';
import { nextServiceSort, readServiceSort, sortServices, writeServiceSort, type ServiceSortKey } from './service-sort.js';
import { sparklineInterval } from '../state/sparkline-interval.js';
import { sparklineCounts } from './sparkline-counts.js';
import { navigate, useLocation } from '../state/location.js';
import { useGlobalFilters } from '../state/use-global-filters.js';

/** Every service that reported in the range: volume, errors, latency, and a request-rate sparkline. */
export function ServicesPage() {
  const { apiQuery } = useGlobalFilters();
  const { search } = useLocation();
  const sort = readServiceSort(search.get('sort'));
  const state = useApi<ServicesResponse>('/api/v1/services', apiQuery);
  const rows = useMemo(() => (state.data ? sortServices(state.data.services, sort) : []), [state.data, sort.key, sort.descending]);
  const header = (key: ServiceSortKey, label: string, numeric = true) => {
    const active = sort.key === key;
    return (
      <th class={numeric ? 'num' : undefined} aria-sort={active ? (sort.descending ? 'descending' : 'ascending') : 'none'}>
        <button
          type="button"
          class="sort-button"
          onClick={() => navigate(withParams('/services', search, { sort: writeServiceSort(nextServiceSort(sort, key)) }), { replace: true })}
        >
          {label}
          <span aria-hidden="true">{active ? (sort.descending ? ' ↓' : ' ↑') : ''}</span>
        </button>
      </th>
    );
  };
  return (
    <Layout title="Services">
      <DataState
        state={state}
        empty={(data) => data.services.length === 0}
        emptyMessage={
          <>
            No service reported in this range. Widen the time range, or send data: create an ingestion key in{' '}
            <Link href="/settings/keys">Settings › Keys</Link> and post protocol v1 envelopes to <code>/api/v1/ingest</code>.
          </>
        }
      >
        {(data) => (
          <div class="table-wrap">
            <table class="table" aria-label="Services">
              <thead>
                <tr>
                  {header('service', 'Service', false)}
                  <th>Environments</th>
                  {header('count', 'Requests')}
                  <th class="num">Request rate</th>
                  {header('errorRate', 'Error rate')}
                  {header('p50Ms', 'p50')}
                  {header('p95Ms', 'p95')}
                  {header('p99Ms', 'p99')}
                  {header('apdex', 'Apdex')}
                  <th>Requests over time</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => (
                  <tr key={row.service}>
                    <td>
                      <Link href={hrefWithView(serviceHref(row.service))} class="strong">
                        {row.service}
                      </Link>
                      <CountedSpansBadge counted={row.countedSpans} />
                    </td>
                    <td>{row.environments.join(', ')}</td>
                    <td class="num">{formatCount(row.count)}</td>
                    <td class="num">{formatRate(perMinute(row.count, data))}</td>
                    <td class={isHighErrorRate(row.errorRate) ? 'num bad' : 'num'}>{formatPercent(row.errorRate)}</td>
                    <td class="num">{formatDurationMs(row.p50Ms)}</td>
                    <td class="num">{formatDurationMs(row.p95Ms)}</td>
                    <td class="num">{formatDurationMs(row.p99Ms)}</td>
                    <td class="num" title={`T = ${formatDurationMs(row.apdexThresholdMs)}`}>
                      {formatApdex(row.apdex)}
                    </td>
                    <td>
                      <ServiceSparkline service={row.service} query={apiQuery} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </DataState>
    </Layout>
  );
}

/** Says when a service's figures are not its entry spans: a worker's root spans, or nothing at all. */
function CountedSpansBadge({ counted }: { counted: ServiceRow['countedSpans'] }) {
  if (counted === 'entry') return null;
  return counted === 'root' ? (
    <span class="badge badge-note" title="No server or consumer spans in this range: its figures count its root internal spans (jobs it starts itself).">
      root spans
    </span>
  ) : (
    <span class="badge badge-note" title="Only outgoing calls and internal child spans in this range: nothing to count as requests.">
      no entry spans
    </span>
  );
}

function ServiceSparkline({ service, query }: { service: string; query: Record<string, string> }) {
  const trend = useApi<TrendResponse>('/api/v1/trend', { ...query, service, interval: sparklineInterval(query.from!, query.to!) });
  const values = useMemo(() => (trend.data ? sparklineCounts(trend.data) : []), [trend.data]);
  return <Sparkline values={values} label={`${service} requests over time`} />;
}

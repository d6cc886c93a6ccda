import { useMemo } from 'preact/hooks';
import type { ServicesResponse, TrendResponse } from '../api/api-types.js';
import { useApi } from '../api/use-api.js';
import { DataState } from '../components/data-state.js';
import { Layout } from '../components/layout.js';
import { Link } from '../components/link.js';
import { Sparkline } from '../components/sparkline.js';
import { formatCount, formatDurationMs, formatPercent, formatRate } from '../format.js';
import { hrefWithView } from '../state/links.js';
import { perMinute } from '../state/rates.js';
import { sparklineInterval } from '../state/sparkline-interval.js';
import { useGlobalFilters } from '../state/use-global-filters.js';

/** Every service that reported in the range: volume, errors, latency, and a request-rate sparkline. */
export function ServicesPage() {
  const { apiQuery } = useGlobalFilters();
  const state = useApi<ServicesResponse>('/api/v1/services', apiQuery);
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
                  <th>Service</th>
                  <th>Environments</th>
                  <th class="num">Requests</th>
                  <th class="num">Request rate</th>
                  <th class="num">Error rate</th>
                  <th class="num">p50</th>
                  <th class="num">p95</th>
                  <th class="num">p99</th>
                  <th>Requests over time</th>
                </tr>
              </thead>
              <tbody>
                {data.services.map((row) => (
                  <tr key={row.service}>
                    <td>
                      <Link href={hrefWithView(`/services/${encodeURIComponent(row.service)}`)} class="strong">
                        {row.service}
                      </Link>
                    </td>
                    <td>{row.environments.join(', ')}</td>
                    <td class="num">{formatCount(row.count)}</td>
                    <td class="num">{formatRate(perMinute(row.count, data))}</td>
                    <td class={row.errorRate > 0.05 ? 'num bad' : 'num'}>{formatPercent(row.errorRate)}</td>
                    <td class="num">{formatDurationMs(row.p50Ms)}</td>
                    <td class="num">{formatDurationMs(row.p95Ms)}</td>
                    <td class="num">{formatDurationMs(row.p99Ms)}</td>
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

function ServiceSparkline({ service, query }: { service: string; query: Record<string, string> }) {
  const trend = useApi<TrendResponse>('/api/v1/trend', { ...query, service, interval: sparklineInterval(query.from!, query.to!) });
  const values = useMemo(() => trend.data?.buckets.map((bucket) => bucket.count) ?? [], [trend.data]);
  return <Sparkline values={values} label={`${service} requests over time`} />;
}

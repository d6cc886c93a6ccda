import type { OperationsResponse, SummaryResponse, TrendResponse } from '../api/api-types.js';
import { useApi } from '../api/use-api.js';
import { TrendCharts } from '../charts/trend-charts.js';
import { DataState } from '../components/data-state.js';
import { Layout } from '../components/layout.js';
import { Link } from '../components/link.js';
import { Tabs } from '../components/tabs.js';
import { Tiles } from '../components/tiles.js';
import { formatCount, formatDurationMs, formatPercent, formatRate } from '../format.js';
import { isHighErrorRate } from '../state/error-rate.js';
import { hrefWithView, serviceHref } from '../state/links.js';
import type { RouteParams } from '../state/routes.js';
import { useGlobalFilters } from '../state/use-global-filters.js';
import { DatabaseTable } from './database-page.js';
import { DependencyView } from './dependencies-page.js';

const tabs = ['overview', 'database', 'dependencies'] as const;
type Tab = (typeof tabs)[number];

/** How many operations the overview lists, the busiest first. */
const topOperationsLimit = 20;

/** One service: its figures, trends and top operations, and its database and dependency activity. */
export function ServicePage({ params }: { params: RouteParams }) {
  const name = params.name!;
  const tab: Tab = (tabs as readonly string[]).includes(params.tab ?? 'overview') ? ((params.tab ?? 'overview') as Tab) : 'overview';
  const { apiQuery } = useGlobalFilters();
  // The page is about the service in its path, whatever the service filter says.
  const query = { ...apiQuery, service: name };
  const base = serviceHref(name);
  return (
    <Layout title={name}>
      <Tabs
        active={tab}
        tabs={[
          { key: 'overview', label: 'Overview', href: hrefWithView(base) },
          { key: 'database', label: 'Database', href: hrefWithView(`${base}/database`) },
          { key: 'dependencies', label: 'Dependencies', href: hrefWithView(`${base}/dependencies`) },
        ]}
      />
      {tab === 'overview' ? <ServiceOverview name={name} query={query} /> : null}
      {tab === 'database' ? <DatabaseTable query={query} /> : null}
      {tab === 'dependencies' ? <DependencyView query={query} /> : null}
    </Layout>
  );
}

function ServiceOverview({ name, query }: { name: string; query: Record<string, string> }) {
  const summary = useApi<SummaryResponse>('/api/v1/summary', query);
  const trend = useApi<TrendResponse>('/api/v1/trend', query);
  return (
    <>
      <DataState state={summary}>
        {(data) => (
          <Tiles
            tiles={[
              { label: 'Requests', value: formatCount(data.count) },
              { label: 'Request rate', value: formatRate(data.perMinute) },
              { label: 'Error rate', value: formatPercent(data.errorRate), tone: isHighErrorRate(data.errorRate) ? 'bad' : undefined },
              { label: 'p50', value: formatDurationMs(data.p50Ms) },
              { label: 'p95', value: formatDurationMs(data.p95Ms) },
              { label: 'p99', value: formatDurationMs(data.p99Ms) },
            ]}
          />
        )}
      </DataState>
      <section class="section" aria-label="Trends">
        <DataState state={trend}>{(data) => <TrendCharts trend={data} />}</DataState>
      </section>
      <section class="section" aria-labelledby="top-operations-title">
        <h2 id="top-operations-title">Top operations</h2>
        <TopOperations name={name} query={query} />
      </section>
      <p class="section-links">
        <Link href={hrefWithView('/occurrences', { service: name })}>Occurrences of {name}</Link>
        <Link href={hrefWithView('/occurrences', { service: name, status: 'error' })}>Errors of {name}</Link>
      </p>
    </>
  );
}

/** The service's busiest operations, each linking to its occurrences. */
function TopOperations({ name, query }: { name: string; query: Record<string, string> }) {
  const state = useApi<OperationsResponse>('/api/v1/operations', { ...query, limit: String(topOperationsLimit) });
  return (
    <DataState state={state} empty={(data) => data.operations.length === 0}>
      {(data) => {
        // A service running in several environments lists an operation once per environment.
        const showEnvironment = new Set(data.operations.map((row) => row.environment)).size > 1;
        return (
          <div class="table-wrap">
            <table class="table" aria-label="Top operations">
              <thead>
                <tr>
                  <th>Operation</th>
                  {showEnvironment ? <th>Environment</th> : null}
                  <th>Kind</th>
                  <th class="num">Requests</th>
                  <th class="num">Error rate</th>
                  <th class="num">p50</th>
                  <th class="num">p95</th>
                  <th class="num">p99</th>
                </tr>
              </thead>
              <tbody>
                {data.operations.map((row) => (
                  <tr key={`${row.environment}\u0000${row.operation}\u0000${row.kind}`}>
                    <td class="strong">
                      <Link href={hrefWithView('/occurrences', { service: name, operation: row.operation })}>{row.operation}</Link>
                    </td>
                    {showEnvironment ? <td>{row.environment}</td> : null}
                    <td>{row.kind}</td>
                    <td class="num">{formatCount(row.count)}</td>
                    <td class={isHighErrorRate(row.errorRate) ? 'num bad' : 'num'}>{formatPercent(row.errorRate)}</td>
                    <td class="num">{formatDurationMs(row.p50Ms)}</td>
                    <td class="num">{formatDurationMs(row.p95Ms)}</td>
                    <td class="num">{formatDurationMs(row.p99Ms)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        );
      }}
    </DataState>
  );
}

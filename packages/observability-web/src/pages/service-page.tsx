import type { SummaryResponse, TrendResponse } from '../api/api-types.js';
import { useApi } from '../api/use-api.js';
import { TrendCharts } from '../charts/trend-charts.js';
import { DataState } from '../components/data-state.js';
import { Layout } from '../components/layout.js';
import { Link } from '../components/link.js';
import { Tabs } from '../components/tabs.js';
import { Tiles } from '../components/tiles.js';
import { formatCount, formatDurationMs, formatPercent, formatRate } from '../format.js';
import { hrefWithView } from '../state/links.js';
import type { RouteParams } from '../state/routes.js';
import { useGlobalFilters } from '../state/use-global-filters.js';
import { DatabaseTable } from './database-page.js';
import { DependencyView } from './dependencies-page.js';

const tabs = ['overview', 'database', 'dependencies'] as const;
type Tab = (typeof tabs)[number];

/** One service: its figures and trends, and its database and dependency activity. */
export function ServicePage({ params }: { params: RouteParams }) {
  const name = params.name!;
  const tab: Tab = (tabs as readonly string[]).includes(params.tab ?? 'overview') ? ((params.tab ?? 'overview') as Tab) : 'overview';
  const { apiQuery } = useGlobalFilters();
  // The page is about the service in its path, whatever the service filter says.
  const query = { ...apiQuery, service: name };
  const base = `/services/${encodeURIComponent(name)}`;
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
              { label: 'Error rate', value: formatPercent(data.errorRate), tone: data.errorRate > 0.05 ? 'bad' : undefined },
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
      <p class="section-links">
        <Link href={hrefWithView('/occurrences', { service: name })}>Occurrences of {name}</Link>
        <Link href={hrefWithView('/occurrences', { service: name, status: 'error' })}>Errors of {name}</Link>
      </p>
    </>
  );
}

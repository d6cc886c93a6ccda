import { useState } from 'preact/hooks';
import { apiPut } from '../api/api-client.js';
import type { ErrorGroupsResponse, OperationRow, OperationsResponse, ServiceSettings, SummaryResponse, TrendResponse } from '../api/api-types.js';
import { useApi } from '../api/use-api.js';
import { TrendCharts, TrendChartsPlaceholder } from '../charts/trend-charts.js';
import { DataState } from '../components/data-state.js';
import { Layout } from '../components/layout.js';
import { Link } from '../components/link.js';
import { Tabs } from '../components/tabs.js';
import { Tiles } from '../components/tiles.js';
import { useSubmit } from '../components/use-submit.js';
import { apdexRating, formatApdex, formatCount, formatDurationMs, formatPercent, formatRate } from '../format.js';
import { useEditableCopy } from '../state/editable-copy.js';
import { isHighErrorRate } from '../state/error-rate.js';
import { hrefWithView, serviceHref } from '../state/links.js';
import { navigate } from '../state/location.js';
import { refreshAll } from '../state/refresh.js';
import type { RouteParams } from '../state/routes.js';
import { useGlobalFilters } from '../state/use-global-filters.js';
import { DatabaseTable } from './database-page.js';
import { ErrorGroupsTable } from './errors-page.js';
import { DependencyView } from './dependencies-page.js';

const tabs = ['overview', 'errors', 'database', 'dependencies'] as const;
type Tab = (typeof tabs)[number];

/** How many operations each overview table lists, the busiest first. */
const topOperationsLimit = 20;
/** Below this Apdex a service's users are not satisfied ("fair" and worse): shown in red. */
const apdexLowBelow = 0.7;

/** One service: its figures, trends and top operations, and its database and dependency activity. */
export function ServicePage({ params }: { params: RouteParams }) {
  const name = params.name!;
  const tab: Tab = (tabs as readonly string[]).includes(params.tab ?? 'overview') ? ((params.tab ?? 'overview') as Tab) : 'overview';
  const { apiQuery } = useGlobalFilters();
  // The page is about the service in its path, whatever the service filter says.
  const query = { ...apiQuery, service: name };
  const base = serviceHref(name);
  return (
    <Layout
      title={name}
      pageService={{
        name,
        // Another service opens its page on the same tab; "All services" goes back to the list.
        choose: (service) => navigate(hrefWithView(service ? `${serviceHref(service)}${tab === 'overview' ? '' : `/${tab}`}` : '/services', { service: undefined })),
      }}
    >
      <Tabs
        active={tab}
        tabs={[
          { key: 'overview', label: 'Overview', href: hrefWithView(base, { service: undefined }) },
          { key: 'errors', label: 'Errors', href: hrefWithView(`${base}/errors`, { service: undefined }) },
          { key: 'database', label: 'Database', href: hrefWithView(`${base}/database`, { service: undefined }) },
          { key: 'dependencies', label: 'Dependencies', href: hrefWithView(`${base}/dependencies`, { service: undefined }) },
        ]}
      />
      {tab === 'overview' ? <ServiceOverview name={name} query={query} /> : null}
      {tab === 'errors' ? <ServiceErrors name={name} query={query} /> : null}
      {tab === 'database' ? <DatabaseTable query={query} /> : null}
      {tab === 'dependencies' ? <DependencyView query={query} /> : null}
    </Layout>
  );
}

function ServiceOverview({ name, query }: { name: string; query: Record<string, string> }) {
  const summary = useApi<SummaryResponse>('/api/v1/summary', query);
  const trend = useApi<TrendResponse>('/api/v1/trend', query);
  const settings = useApi<ServiceSettings>(`/api/v1/services/${encodeURIComponent(name)}/settings`);
  const [editing, setEditing] = useState(false);
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
              {
                label: 'Apdex',
                value: formatApdex(data.apdex),
                tone: data.apdex !== null && data.apdex < apdexLowBelow ? 'bad' : undefined,
                detail: settings.data ? (
                  <>
                    {apdexRating(data.apdex) ? `${apdexRating(data.apdex)}, ` : ''}T = {formatCount(settings.data.apdexThresholdMs)} ms{' '}
                    <button type="button" class="button-link" onClick={() => setEditing(!editing)} aria-expanded={editing}>
                      change
                    </button>
                  </>
                ) : undefined,
              },
            ]}
          />
        )}
      </DataState>
      {editing && settings.data ? (
        <ApdexThresholdForm
          settings={settings.data}
          onDone={() => {
            setEditing(false);
            // Every figure on the page that uses T: tiles, trend, operations.
            refreshAll();
          }}
        />
      ) : null}
      <p class="muted counted-note">
        Requests, errors, latency and Apdex count this service’s entry spans (server and consumer); a service without any (a worker, a batch job) is measured by
        its root internal spans. Outgoing calls and internal steps are listed separately below.
      </p>
      <section class="section" aria-label="Trends">
        {/* The operations tables below load separately: the placeholder takes the charts' room. */}
        <DataState state={trend} loading={<TrendChartsPlaceholder withApdex />}>
          {(data) => <TrendCharts trend={data} withApdex />}
        </DataState>
      </section>
      <section class="section" aria-labelledby="entry-operations-title">
        <h2 id="entry-operations-title">Entry operations</h2>
        <TopOperations name={name} query={query} entry />
      </section>
      <section class="section" aria-labelledby="child-operations-title">
        <h2 id="child-operations-title">Outgoing calls and internal operations</h2>
        <TopOperations name={name} query={query} entry={false} />
      </section>
      <p class="section-links">
        <Link href={hrefWithView('/occurrences', { service: name })}>Occurrences of {name}</Link>
        <Link href={hrefWithView('/occurrences', { service: name, status: 'error' })}>Errors of {name}</Link>
      </p>
    </>
  );
}

/** Sets the service's Apdex threshold T (any signed-in user may). */
function ApdexThresholdForm({ settings, onDone }: { settings: ServiceSettings; onDone: () => void }) {
  const [value, setValue] = useEditableCopy(String(settings.apdexThresholdMs));
  const { busy, error, submit } = useSubmit(async () => {
    await apiPut<ServiceSettings>(`/api/v1/services/${encodeURIComponent(settings.service)}/settings`, { apdexThresholdMs: Number(value) });
    onDone();
  });
  return (
    <form class="toolbar apdex-form" onSubmit={submit} aria-label="Apdex threshold">
      <label class="field-inline">
        Apdex threshold T (ms)
        <input class="input input-narrow" type="number" min={1} max={600000} step="any" required value={value} onInput={(event) => setValue(event.currentTarget.value)} />
      </label>
      <span class="muted">
        Satisfied at or below T, tolerating up to 4T; errors count as frustrated.{settings.apdexThresholdIsDefault ? ' Now the default.' : ''}
      </span>
      {error ? <span class="field-error" role="alert">{error}</span> : null}
      <button type="submit" class="button button-small button-primary" disabled={busy}>
        Save
      </button>
    </form>
  );
}

/** The service's busiest operations of one side (entry, or calls and internal work), each linking to its occurrences. */
function TopOperations({ name, query, entry }: { name: string; query: Record<string, string>; entry: boolean }) {
  const state = useApi<OperationsResponse>('/api/v1/operations', { ...query, limit: String(topOperationsLimit), entry: String(entry) });
  return (
    <DataState
      state={state}
      empty={(data) => data.operations.length === 0}
      emptyMessage={entry ? 'No entry spans in this range.' : 'No outgoing calls or internal operations in this range.'}
    >
      {(data) => {
        // A service running in several environments lists an operation once per environment.
        const showEnvironment = new Set(data.operations.map((row) => row.environment)).size > 1;
        return (
          <div class="table-wrap">
            <table class="table" aria-label={entry ? 'Entry operations' : 'Outgoing calls and internal operations'}>
              <thead>
                <tr>
                  <th>Operation</th>
                  {showEnvironment ? <th>Environment</th> : null}
                  <th>Kind</th>
                  <th class="num">{entry ? 'Requests' : 'Calls'}</th>
                  <th class="num">Error rate</th>
                  <th class="num">p50</th>
                  <th class="num">p95</th>
                  <th class="num">p99</th>
                  {entry ? <th class="num">Apdex</th> : null}
                </tr>
              </thead>
              <tbody>
                {data.operations.map((row) => (
                  <OperationLine key={`${row.environment}\u0000${row.operation}\u0000${row.kind}\u0000${row.entry}`} name={name} row={row} showEnvironment={showEnvironment} />
                ))}
              </tbody>
            </table>
          </div>
        );
      }}
    </DataState>
  );
}

function OperationLine({ name, row, showEnvironment }: { name: string; row: OperationRow; showEnvironment: boolean }) {
  return (
    <tr>
      <td class="strong">
        <Link href={hrefWithView('/occurrences', { service: name, operation: row.operation })}>{row.operation}</Link>
      </td>
      {showEnvironment ? <td>{row.environment}</td> : null}
      <td>
        <span class={`badge kind-${row.kind}`}>{row.kind}</span>
      </td>
      <td class="num">{formatCount(row.count)}</td>
      <td class={isHighErrorRate(row.errorRate) ? 'num bad' : 'num'}>{formatPercent(row.errorRate)}</td>
      <td class="num">{formatDurationMs(row.p50Ms)}</td>
      <td class="num">{formatDurationMs(row.p95Ms)}</td>
      <td class="num">{formatDurationMs(row.p99Ms)}</td>
      {row.entry ? <td class={row.apdex !== null && row.apdex < apdexLowBelow ? 'num bad' : 'num'}>{formatApdex(row.apdex)}</td> : null}
    </tr>
  );
}

/** How many error groups the service page lists; the Errors page has them all. */
const serviceErrorGroupsShown = 10;

/** The service's unresolved error groups, latest first, with a way to all of them. */
function ServiceErrors({ name, query }: { name: string; query: Record<string, string> }) {
  const state = useApi<ErrorGroupsResponse>('/api/v1/errors', { ...query, status: 'unresolved', limit: serviceErrorGroupsShown });
  return (
    <>
      <DataState state={state} empty={(data) => data.items.length === 0} emptyMessage="No unresolved errors in this range.">
        {(data) => <ErrorGroupsTable groups={data.items} />}
      </DataState>
      <p class="section-links section-links-below">
        <Link href={hrefWithView('/errors', { service: name, status: 'all' })}>All error groups of {name}</Link>
      </p>
    </>
  );
}

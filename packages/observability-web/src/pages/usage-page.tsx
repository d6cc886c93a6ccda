import { useMemo } from 'preact/hooks';
import { apiUrl } from '../api/api-client.js';
import type { UsageResponse, UsageTrendResponse } from '../api/api-types.js';
import { useApi } from '../api/use-api.js';
import { chartColors } from '../charts/trend-charts.js';
import { TimeSeriesChart, TimeSeriesChartPlaceholder } from '../charts/time-series-chart.js';
import { DataState } from '../components/data-state.js';
import { DataTable } from '../components/data-table.js';
import { Layout } from '../components/layout.js';
import { formatCount, formatDurationMs } from '../format.js';
import { useEditableCopy } from '../state/editable-copy.js';
import { withParams } from '../state/links.js';
import { navigate, useLocation } from '../state/location.js';
import { useGlobalFilters } from '../state/use-global-filters.js';
import { ApplyButton, FilterInput } from '../components/filter-input.js';

/** Usage per tenant: a table, a trend, and CSV / JSON exports of the same view. */
export function UsagePage() {
  const { search } = useLocation();
  const { apiQuery } = useGlobalFilters();
  const tenantId = search.get('tenantId') ?? '';
  const query = { ...apiQuery, tenantId };
  const usage = useApi<UsageResponse>('/api/v1/usage', query);
  const trend = useApi<UsageTrendResponse>('/api/v1/usage/trend', query);
  const [tenantText, setTenantText] = useEditableCopy(tenantId);

  const applyTenant = (value: string) => navigate(withParams('/usage', search, { tenantId: value }));

  return (
    <Layout
      title="Usage"
      actions={
        <>
          <a class="button button-small" href={apiUrl('/api/v1/usage/export', { ...query, format: 'csv' })} download="usage.csv">
            Export CSV
          </a>
          <a class="button button-small" href={apiUrl('/api/v1/usage/export', { ...query, format: 'json' })} download="usage.json">
            Export JSON
          </a>
        </>
      }
    >
      <form
        class="toolbar"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          applyTenant(tenantText.trim());
        }}
      >
        <FilterInput label="Tenant" name="tenantId" placeholder="All tenants" value={tenantText} onInput={(event) => setTenantText(event.currentTarget.value)} />
        <ApplyButton />
      </form>
      <section class="section" aria-label="Usage trend">
        {/* The table below loads separately: the placeholder takes the chart's room. */}
        <DataState state={trend} loading={<TimeSeriesChartPlaceholder title={usageTrendTitle} series={usageSeries} />}>
          {(data) => <UsageTrendChart trend={data} />}
        </DataState>
      </section>
      <DataState state={usage} empty={(data) => data.tenants.length === 0}>
        {(data) => (
          <DataTable
            label="Usage per tenant"
            columns={['Tenant', { label: 'Occurrences', num: true }, { label: 'Errors', num: true }, { label: 'Total time', num: true }, { label: 'Log records', num: true }, 'Services']}
          >
            {data.tenants.map((tenant) => (
              <tr key={tenant.tenantId}>
                <td>
                  <button type="button" class="button-link strong" onClick={() => applyTenant(tenant.tenantId)}>
                    {tenant.tenantId}
                  </button>
                </td>
                <td class="num">{formatCount(tenant.occurrences)}</td>
                <td class={tenant.errors > 0 ? 'num bad' : 'num'}>{formatCount(tenant.errors)}</td>
                <td class="num">{formatDurationMs(tenant.totalDurationMs)}</td>
                <td class="num">{formatCount(tenant.logs)}</td>
                <td>{tenant.services.join(', ')}</td>
              </tr>
            ))}
          </DataTable>
        )}
      </DataState>
    </Layout>
  );
}

const usageTrendTitle = 'Occurrences and log records';
/** The trend's series, named and coloured; their values come with the trend. */
const usageSeries = [
  { label: 'Occurrences', color: chartColors.requests },
  { label: 'Errors', color: chartColors.errors },
  { label: 'Log records', color: chartColors.p50 },
] as const;

function UsageTrendChart({ trend }: { trend: UsageTrendResponse }) {
  const { times, series } = useMemo(
    () => ({
      times: trend.buckets.map((bucket) => Date.parse(bucket.start)),
      series: [
        { ...usageSeries[0], values: trend.buckets.map((bucket) => bucket.occurrences) },
        { ...usageSeries[1], values: trend.buckets.map((bucket) => bucket.errors) },
        { ...usageSeries[2], values: trend.buckets.map((bucket) => bucket.logs) },
      ],
    }),
    [trend],
  );
  return <TimeSeriesChart title={`${usageTrendTitle} per ${trend.interval}`} times={times} series={series} format={formatCount} integer />;
}

import { useMemo } from 'preact/hooks';
import { apiPost } from '../api/api-client.js';
import type { ErrorGroupDetail, ErrorGroupStatus } from '../api/api-types.js';
import { useApi } from '../api/use-api.js';
import { chartColors } from '../charts/trend-charts.js';
import { TimeSeriesChart } from '../charts/time-series-chart.js';
import { DataState } from '../components/data-state.js';
import { ErrorStatusBadge, errorTitleOf } from '../components/error-status-badge.js';
import { Layout } from '../components/layout.js';
import { Link } from '../components/link.js';
import { Tiles } from '../components/tiles.js';
import { useAction } from '../components/use-submit.js';
import { formatAgo, formatCount, formatDurationMs, formatTimestamp } from '../format.js';
import { hrefWithView, serviceHref } from '../state/links.js';
import type { RouteParams } from '../state/routes.js';
import { useGlobalFilters } from '../state/use-global-filters.js';

/** The status changes a group offers in each status. */
const actionsFor: Record<ErrorGroupStatus, Array<{ status: 'open' | 'resolved' | 'ignored'; label: string; primary?: boolean }>> = {
  open: [
    { status: 'resolved', label: 'Resolve', primary: true },
    { status: 'ignored', label: 'Ignore' },
  ],
  regressed: [
    { status: 'resolved', label: 'Resolve', primary: true },
    { status: 'ignored', label: 'Ignore' },
  ],
  resolved: [{ status: 'open', label: 'Reopen' }],
  ignored: [{ status: 'open', label: 'Reopen' }],
};

/** One error group: what it is, how often and where it happens, its latest occurrences, and resolve / ignore / reopen. */
export function ErrorGroupPage({ params }: { params: RouteParams }) {
  const groupId = params.groupId!;
  const { apiQuery } = useGlobalFilters();
  const state = useApi<ErrorGroupDetail>(`/api/v1/errors/${encodeURIComponent(groupId)}`, { from: apiQuery.from, to: apiQuery.to, environment: apiQuery.environment });
  const { error, run } = useAction();
  const setStatus = (status: 'open' | 'resolved' | 'ignored') =>
    run(async () => {
      await apiPost(`/api/v1/errors/${encodeURIComponent(groupId)}/status`, { status });
      state.reload();
    });
  const group = state.data;

  return (
    <Layout
      title="Error group"
      controls="view"
      actions={
        group
          ? actionsFor[group.status].map((action) => (
              <button key={action.status} type="button" class={action.primary ? 'button button-small button-primary' : 'button button-small'} onClick={() => setStatus(action.status)}>
                {action.label}
              </button>
            ))
          : null
      }
    >
      {error ? (
        <div class="notice notice-error" role="alert">
          {error}
        </div>
      ) : null}
      <DataState state={state}>{(data) => <ErrorGroupBody group={data} />}</DataState>
    </Layout>
  );
}

function ErrorGroupBody({ group }: { group: ErrorGroupDetail }) {
  const times = useMemo(() => group.trend.map((bucket) => Date.parse(bucket.start)), [group.trend]);
  const series = useMemo(() => [{ label: 'Events', values: group.trend.map((bucket) => bucket.count), color: chartColors.errors }], [group.trend]);
  const interval = group.trendIntervalMs >= 3_600_000 ? `${group.trendIntervalMs / 3_600_000} h` : `${group.trendIntervalMs / 60_000} min`;
  return (
    <>
      <header class="error-header">
        <div class="error-header-title">
          <ErrorStatusBadge status={group.status} />
          <h2>{errorTitleOf(group)}</h2>
        </div>
        {group.type ? <p class="error-summary">{group.message}</p> : null}
        <p class="error-origin">
          <Link href={hrefWithView(serviceHref(group.service))} class="badge">
            {group.service}
          </Link>
          {group.topFrame ? <code>{group.topFrame}</code> : <span class="muted">no stack</span>}
          {group.statusChangedAt ? <span class="muted">status changed {formatAgo(group.statusChangedAt)}</span> : null}
        </p>
      </header>
      <Tiles
        tiles={[
          { label: 'Events in range', value: formatCount(group.countInRange), tone: group.countInRange > 0 ? 'bad' : undefined },
          { label: 'Events (all time)', value: formatCount(group.count) },
          { label: 'Tenants affected', value: formatCount(group.tenantsAffected) },
          { label: 'First seen', value: formatAgo(group.firstSeen), detail: formatTimestamp(group.firstSeen) },
          { label: 'Last seen', value: formatAgo(group.lastSeen), detail: formatTimestamp(group.lastSeen) },
        ]}
      />
      <div class="chart-grid chart-grid-single">
        <TimeSeriesChart title={`Events (per ${interval})`} times={times} series={series} format={formatCount} integer height={180} />
      </div>

      <section class="section">
        <h3 class="subheading">Latest example</h3>
        <dl class="fields">
          <dt>Message</dt>
          <dd>
            <code>{group.exampleMessage ?? '–'}</code>
          </dd>
          <dt>Trace</dt>
          <dd>
            <Link class="button button-small button-primary" href={hrefWithView(`/traces/${group.exampleTrace.traceId}`, { span: group.exampleTrace.spanId })}>
              View example trace
            </Link>{' '}
            <code class="muted">{group.exampleTrace.traceId}</code>
          </dd>
          <dt>Fingerprint</dt>
          <dd>
            <code>{group.groupId}</code> <span class="muted">(service, type, normalized message, top in-app frame)</span>
          </dd>
        </dl>
      </section>

      <div class="error-columns">
        <CountSection
          title="Environments"
          empty="No events in this range."
          rows={group.environments.map((row) => ({ name: row.environment, count: row.count }))}
        />
        <CountSection
          title="Most affected tenants"
          empty="No occurrence named a tenant."
          rows={group.tenants.map((row) => ({ name: row.tenantId, count: row.count, note: formatAgo(row.lastSeen) }))}
        />
      </div>

      <section class="section">
        <h3 class="subheading">Latest occurrences in the range</h3>
        {group.recentOccurrences.length === 0 ? (
          <p class="muted">None in this range.</p>
        ) : (
          <div class="table-wrap">
            <table class="table" aria-label="Latest occurrences">
              <thead>
                <tr>
                  <th>Started (UTC)</th>
                  <th>Operation</th>
                  <th>Message</th>
                  <th class="num">Duration</th>
                  <th>Environment</th>
                  <th>Tenant</th>
                  <th>Trace</th>
                </tr>
              </thead>
              <tbody>
                {group.recentOccurrences.map((occurrence) => (
                  <tr key={occurrence.id}>
                    <td class="nowrap">
                      <Link href={hrefWithView(`/occurrences/${encodeURIComponent(occurrence.id)}`)}>{formatTimestamp(occurrence.startedAt)}</Link>
                    </td>
                    <td class="strong">{occurrence.operation}</td>
                    <td class="error-message-cell">{occurrence.error?.message ?? '–'}</td>
                    <td class="num">{formatDurationMs(occurrence.durationMs)}</td>
                    <td>{occurrence.environment}</td>
                    <td>{occurrence.tenantId ?? '–'}</td>
                    <td>
                      <Link href={hrefWithView(`/traces/${occurrence.traceId}`, { span: occurrence.spanId })}>Trace</Link>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}

/** A small titled table of names and counts (an optional note each), or a line saying there is none. */
function CountSection({ title, empty, rows }: { title: string; empty: string; rows: Array<{ name: string; count: number; note?: string }> }) {
  return (
    <section class="section">
      <h3 class="subheading">{title}</h3>
      {rows.length === 0 ? (
        <p class="muted">{empty}</p>
      ) : (
        <table class="table table-compact" aria-label={title}>
          <tbody>
            {rows.map((row) => (
              <tr key={row.name}>
                <td>{row.name}</td>
                <td class="num">{formatCount(row.count)}</td>
                {row.note === undefined ? null : <td class="muted nowrap">{row.note}</td>}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

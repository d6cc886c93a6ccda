import { useEffect, useState } from 'preact/hooks';
import { apiDelete, apiPost } from '../../api/api-client.js';
import type { AlertChannelsResponse, AlertEventsResponse, AlertRulesResponse, AlertRuleView, AlertSeries } from '../../api/api-types.js';
import { useSession } from '../../api/session.js';
import { useApi } from '../../api/use-api.js';
import { DataState } from '../../components/data-state.js';
import { DataTable } from '../../components/data-table.js';
import { Layout } from '../../components/layout.js';
import { Link } from '../../components/link.js';
import { ThresholdSparkline } from '../../components/threshold-sparkline.js';
import { useAction } from '../../components/use-submit.js';
import { formatTimestamp } from '../../format.js';
import { useLocation } from '../../state/location.js';
import { AlertEventsTable } from './alert-events-table.js';
import { RuleEditor } from './rule-editor.js';

/** Transitions shown under the rules; the history page has them all. */
const latestShown = 10;
/** A rule's sparkline, in pixels. */
const sparkline = { width: 240, height: 40 };

function scopeOf(rule: AlertRuleView['rule']): string {
  return [rule.service, rule.operation, rule.environment, rule.tenant && `tenant ${rule.tenant}`].filter(Boolean).join(' · ');
}

function RuleSparkline({ rule }: { rule: AlertRuleView }) {
  const series = useApi<AlertSeries>(`/api/v1/alerts/rules/${encodeURIComponent(rule.id)}/series`, { hours: 24 });
  // The placeholder takes the sparkline's room, so nothing below moves when it arrives.
  if (!series.data)
    return (
      <div class="sparkline muted" style={{ width: `${sparkline.width}px`, height: `${sparkline.height}px` }} aria-busy="true">
        …
      </div>
    );
  return <ThresholdSparkline points={series.data.points} threshold={series.data.threshold} firing={series.data.firing} width={sparkline.width} height={sparkline.height} label={`${rule.rule.name}: ${rule.rule.metric} over 24 hours against ${rule.rule.threshold}`} />;
}

/** Alerts: the rules with their state and a sparkline against the threshold, the editor, and the latest transitions (`?rule=` marks one rule). */
export function AlertsPage() {
  const { user } = useSession();
  const isAdmin = user?.role === 'admin';
  const rules = useApi<AlertRulesResponse>('/api/v1/alerts/rules');
  const channels = useApi<AlertChannelsResponse>('/api/v1/alerts/channels');
  const events = useApi<AlertEventsResponse>('/api/v1/alerts/events', { limit: latestShown });
  const selected = useLocation().search.get('rule') ?? undefined;
  useEffect(() => {
    if (selected !== undefined && rules.data) document.getElementById(`rule-${selected}`)?.scrollIntoView({ block: 'center' });
  }, [selected, rules.data]);
  const [editing, setEditing] = useState<AlertRuleView | 'new' | undefined>();
  const { error, run } = useAction();
  const done = (saved: boolean) => {
    setEditing(undefined);
    if (saved) rules.reload();
  };
  const silence = (rule: AlertRuleView) =>
    run(async () => {
      if (rule.silence) await apiDelete(`/api/v1/alerts/rules/${encodeURIComponent(rule.id)}/silence`);
      else await apiPost(`/api/v1/alerts/rules/${encodeURIComponent(rule.id)}/silence`, { until: new Date(Date.now() + 3_600_000).toISOString(), reason: 'silenced from the dashboard for 1 hour' });
      rules.reload();
    });
  const remove = (rule: AlertRuleView) =>
    run(async () => {
      if (!window.confirm(`Delete the rule "${rule.rule.name}"? Its history stays.`)) return;
      await apiDelete(`/api/v1/alerts/rules/${encodeURIComponent(rule.id)}`);
      rules.reload();
    });

  return (
    <Layout title="Alerts" controls="none">
      {isAdmin ? (
        <div class="toolbar">
          <button type="button" class="button button-primary" onClick={() => setEditing('new')}>
            New rule
          </button>
          <a class="button" href="/api/v1/alerts/export?format=yaml" download="alert-rules.yaml">
            Export rules
          </a>
        </div>
      ) : null}
      {editing ? <RuleEditor key={editing === 'new' ? 'new' : editing.id} rule={editing === 'new' ? undefined : editing} channels={channels.data?.items ?? []} onDone={done} /> : null}
      {error ? <p class="field-error" role="alert">{error}</p> : null}
      <DataState state={rules} empty={(data) => data.items.length === 0} emptyMessage="No alert rules yet.">
        {(data) => (
          <>
            {data.rulesFile ? <p class="muted">Rules marked “file” come from {data.rulesFile} and are changed there.</p> : null}
            <DataTable label="Alert rules" columns={['Rule', 'Watches', 'Condition', 'State', 'Last 24 h', '']}>
              {data.items.map((rule) => (
                <tr key={rule.id} id={`rule-${rule.id}`} class={rule.id === selected ? 'row-selected' : undefined}>
                  <td class="strong">
                    {rule.rule.name} {rule.source === 'file' ? <span class="badge">file</span> : null}
                  </td>
                  <td>{scopeOf(rule.rule)}</td>
                  <td class="mono">
                    {rule.rule.metric} {rule.rule.comparison} {rule.rule.threshold} over {rule.rule.windowMinutes} min{rule.rule.forMinutes > 0 ? `, for ${rule.rule.forMinutes} min` : ''}
                  </td>
                  <td>
                    <span class={`badge badge-${rule.state.state}`}>{rule.state.state}</span>
                    {rule.state.value !== null ? <span class="muted"> {rule.state.value}</span> : null}
                    {rule.silence ? <div class="muted">silenced until {formatTimestamp(rule.silence.until)}</div> : null}
                  </td>
                  <td>
                    <RuleSparkline rule={rule} />
                  </td>
                  <td class="actions">
                    <Link class="button button-small" href={`/alerts/history?rule=${encodeURIComponent(rule.id)}`}>
                      History
                    </Link>
                    {isAdmin && rule.source === 'api' ? (
                      <button type="button" class="button button-small" onClick={() => setEditing(rule)}>
                        Edit
                      </button>
                    ) : null}
                    {isAdmin ? (
                      <button type="button" class="button button-small" onClick={() => silence(rule)}>
                        {rule.silence ? 'Unsilence' : 'Silence 1 h'}
                      </button>
                    ) : null}
                    {isAdmin && rule.source === 'api' ? (
                      <button type="button" class="button button-small button-danger" onClick={() => remove(rule)}>
                        Delete
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </DataTable>
          </>
        )}
      </DataState>
      <h2 class="section-title">
        Latest changes <Link href="/alerts/history">All history →</Link>
      </h2>
      <DataState state={events} empty={(data) => data.items.length === 0} emptyMessage="No alert has changed state yet.">
        {(data) => <AlertEventsTable events={data.items} />}
      </DataState>
    </Layout>
  );
}

import { useState } from 'preact/hooks';
import { apiPost, apiPut } from '../../api/api-client.js';
import type { AlertChannel, AlertRuleSpec, AlertRuleView, AlertSeries } from '../../api/api-types.js';
import { ThresholdSparkline } from '../../components/threshold-sparkline.js';
import { useAction, useSubmit } from '../../components/use-submit.js';
import { formatTimestamp } from '../../format.js';

const metrics: Array<{ value: AlertRuleSpec['metric']; label: string }> = [
  { value: 'error-rate', label: 'Error rate (%)' },
  { value: 'request-rate', label: 'Request rate (per minute)' },
  { value: 'latency-p50', label: 'Latency p50 (ms)' },
  { value: 'latency-p95', label: 'Latency p95 (ms)' },
  { value: 'latency-p99', label: 'Latency p99 (ms)' },
  { value: 'apdex', label: 'Apdex (0–1)' },
  { value: 'new-error-group', label: 'New or regressed error groups' },
];
const comparisons: Array<AlertRuleSpec['comparison']> = ['>', '>=', '<', '<='];

const blank: AlertRuleSpec = { name: '', metric: 'error-rate', service: '', comparison: '>', threshold: 5, windowMinutes: 5, forMinutes: 0, channels: [] };

/** The rule as the API takes it: empty optional filters left out. */
function specOf(draft: AlertRuleSpec): AlertRuleSpec {
  const { operation, environment, tenant, ...rest } = draft;
  return { ...rest, ...(operation ? { operation } : {}), ...(environment ? { environment } : {}), ...(tenant ? { tenant } : {}) };
}

/** Create or edit a rule, with a preview of how it would have fired over the last 24 hours. */
export function RuleEditor({ rule, channels, onDone }: { rule: AlertRuleView | undefined; channels: readonly AlertChannel[]; onDone: (saved: boolean) => void }) {
  const [draft, setDraft] = useState<AlertRuleSpec>(rule ? { ...rule.rule } : blank);
  const [preview, setPreview] = useState<AlertSeries | undefined>();
  const set = (change: Partial<AlertRuleSpec>) => setDraft({ ...draft, ...change });
  const text = (key: 'name' | 'service' | 'operation' | 'environment' | 'tenant', label: string, required = false) => (
    <label class="field">
      <span class="field-label">{label}</span>
      <input class="input" name={key} required={required} value={draft[key] ?? ''} onInput={(event) => set({ [key]: event.currentTarget.value })} />
    </label>
  );
  const number = (key: 'threshold' | 'windowMinutes' | 'forMinutes', label: string) => (
    <label class="field">
      <span class="field-label">{label}</span>
      <input class="input" type="number" name={key} step="any" required value={draft[key] ?? ''} onInput={(event) => set({ [key]: Number(event.currentTarget.value) })} />
    </label>
  );
  const previewAction = useAction();
  const runPreview = () => previewAction.run(async () => setPreview(await apiPost<AlertSeries>('/api/v1/alerts/preview', specOf(draft))));
  const { busy, error, submit } = useSubmit(async () => {
    if (rule) await apiPut(`/api/v1/alerts/rules/${encodeURIComponent(rule.id)}`, specOf(draft));
    else await apiPost('/api/v1/alerts/rules', specOf(draft));
    onDone(true);
  });

  return (
    <form class="alert-editor form" onSubmit={submit} aria-label={rule ? `Edit ${rule.rule.name}` : 'New alert rule'}>
      <div class="form-grid">
        {text('name', 'Name', true)}
        <label class="field">
          <span class="field-label">Metric</span>
          <select class="input" name="metric" value={draft.metric} onChange={(event) => set({ metric: event.currentTarget.value as AlertRuleSpec['metric'] })}>
            {metrics.map((metric) => (
              <option key={metric.value} value={metric.value}>
                {metric.label}
              </option>
            ))}
          </select>
        </label>
        {text('service', 'Service', true)}
        {text('operation', 'Operation (optional)')}
        {text('environment', 'Environment (optional)')}
        {text('tenant', 'Tenant (optional)')}
        <label class="field">
          <span class="field-label">Comparison</span>
          <select class="input" name="comparison" value={draft.comparison} onChange={(event) => set({ comparison: event.currentTarget.value as AlertRuleSpec['comparison'] })}>
            {comparisons.map((comparison) => (
              <option key={comparison} value={comparison}>
                {comparison}
              </option>
            ))}
          </select>
        </label>
        {number('threshold', 'Threshold')}
        {number('windowMinutes', 'Window (minutes)')}
        {number('forMinutes', 'For (minutes)')}
      </div>
      {channels.length > 0 ? (
        <fieldset class="field">
          <legend class="field-label">Notify</legend>
          {channels.map((channel) => (
            <label key={channel.id} class="checkbox">
              <input
                type="checkbox"
                checked={(draft.channels ?? []).includes(channel.id)}
                onChange={(event) => set({ channels: event.currentTarget.checked ? [...(draft.channels ?? []), channel.id] : (draft.channels ?? []).filter((id) => id !== channel.id) })}
              />{' '}
              {channel.name} ({channel.kind})
            </label>
          ))}
        </fieldset>
      ) : null}
      <div class="form-actions">
        <button type="button" class="button" onClick={runPreview}>
          Preview last 24 h
        </button>
        <button type="submit" class="button button-primary" disabled={busy}>
          {rule ? 'Save rule' : 'Create rule'}
        </button>
        <button type="button" class="button" onClick={() => onDone(false)}>
          Cancel
        </button>
      </div>
      {error || previewAction.error ? (
        <p class="field-error" role="alert">
          {error ?? previewAction.error}
        </p>
      ) : null}
      {preview ? (
        <div class="alert-preview" role="region" aria-label="Preview">
          <ThresholdSparkline points={preview.points} threshold={preview.threshold} firing={preview.firing} width={720} height={80} label="Value over the last 24 hours against the threshold" />
          <p data-testid="preview-summary">
            {preview.firing.length === 0
              ? 'Would not have fired in the last 24 hours.'
              : `Would have fired ${preview.firing.length} time${preview.firing.length === 1 ? '' : 's'}: ${preview.firing
                  .map((stretch) => `${formatTimestamp(stretch.from)} – ${stretch.to ? formatTimestamp(stretch.to) : 'still firing'}`)
                  .join('; ')}`}
          </p>
        </div>
      ) : null}
    </form>
  );
}

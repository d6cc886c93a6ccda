import { useState } from 'preact/hooks';
import { apiDelete, apiPost } from '../../api/api-client.js';
import type { AlertChannelsResponse, AlertDelivery, CreatedAlertChannel } from '../../api/api-types.js';
import { useApi } from '../../api/use-api.js';
import { CopyButton } from '../../components/copy-button.js';
import { DataState } from '../../components/data-state.js';
import { RowButton } from '../../components/row-button.js';
import { FormField } from '../../components/form-field.js';
import { useAction, useSubmit } from '../../components/use-submit.js';
import { formatTimestamp } from '../../format.js';
import { DataTable } from '../../components/data-table.js';

type Kind = CreatedAlertChannel['channel']['kind'];

/** Alert notification channels: add (a webhook's signing secret is shown this once), send a test, remove. */
export function AlertChannelsSettings() {
  const channels = useApi<AlertChannelsResponse>('/api/v1/alerts/channels');
  const [name, setName] = useState('');
  const [kind, setKind] = useState<Kind>('webhook');
  const [target, setTarget] = useState('');
  const [created, setCreated] = useState<CreatedAlertChannel | undefined>();
  const [tests, setTests] = useState<Record<string, AlertDelivery>>({});
  const { error: rowError, run } = useAction();
  const { busy, error, submit } = useSubmit(async () => {
    const body = kind === 'email' ? { name: name.trim(), kind, to: target.split(',').map((address) => address.trim()).filter(Boolean) } : { name: name.trim(), kind, url: target.trim() };
    setCreated(await apiPost<CreatedAlertChannel>('/api/v1/alerts/channels', body));
    setName('');
    setTarget('');
    channels.reload();
  });
  const sendTest = (id: string) => run(async () => setTests({ ...tests, [id]: await apiPost<AlertDelivery>(`/api/v1/alerts/channels/${encodeURIComponent(id)}/test`) }));
  const remove = (id: string, channelName: string) =>
    run(async () => {
      if (!window.confirm(`Remove the channel "${channelName}"? Rules stop notifying it.`)) return;
      await apiDelete(`/api/v1/alerts/channels/${encodeURIComponent(id)}`);
      channels.reload();
    });

  return (
    <div class="settings-section">
      <form class="form form-inline" onSubmit={submit} aria-label="Add a channel">
        <FormField label="Channel name" name="channelName" required maxLength={200} value={name} onInput={(event) => setName(event.currentTarget.value)} />
        <label class="field">
          <span class="field-label">Kind</span>
          <select class="input" name="channelKind" value={kind} onChange={(event) => setKind(event.currentTarget.value as Kind)}>
            <option value="webhook">Webhook (signed JSON)</option>
            <option value="slack">Slack incoming webhook</option>
            <option value="email">Email</option>
          </select>
        </label>
        <FormField
          label={kind === 'email' ? 'Addresses (comma-separated)' : 'URL'}
          name="channelTarget"
          required
          value={target}
          onInput={(event) => setTarget(event.currentTarget.value)}
        />
        <button type="submit" class="button button-primary" disabled={busy}>
          Add channel
        </button>
        {error ? <p class="field-error" role="alert">{error}</p> : null}
      </form>
      {created?.signingSecret ? (
        <div class="notice notice-secret" role="status" aria-label="Signing secret">
          <p>
            <strong>Copy the signing secret of “{created.channel.name}” now.</strong> It is shown only this once; requests carry its HMAC in X-Alert-Signature.
          </p>
          <div class="secret-row">
            <code class="secret">{created.signingSecret}</code>
            <CopyButton text={created.signingSecret} />
            <RowButton onClick={() => setCreated(undefined)}>Done</RowButton>
          </div>
        </div>
      ) : null}
      {rowError ? <p class="field-error" role="alert">{rowError}</p> : null}
      <DataState state={channels} empty={(data) => data.items.length === 0} emptyMessage="No channels yet: alerts are recorded in the history only.">
        {(data) => (
          <DataTable label="Alert channels" columns={['Name', 'Kind', 'Sends to', 'Created (UTC)', 'Last test', '']}>
            {data.items.map((channel) => {
              const test = tests[channel.id];
              return (
                <tr key={channel.id}>
                  <td class="strong">{channel.name}</td>
                  <td>{channel.kind}</td>
                  <td class="mono">{channel.target}</td>
                  <td>{formatTimestamp(channel.createdAt)}</td>
                  <td data-testid={`test-result-${channel.name}`}>
                    {test ? (
                      <span class={`badge ${test.status === 'delivered' ? 'badge-good' : 'badge-bad'}`}>
                        {test.status}
                        {test.lastStatusCode ? ` (HTTP ${test.lastStatusCode})` : ''}
                        {test.lastError ? `: ${test.lastError}` : ''}
                      </span>
                    ) : null}
                  </td>
                  <td class="actions">
                    <RowButton onClick={() => sendTest(channel.id)}>Send test</RowButton>
                    <RowButton danger onClick={() => remove(channel.id, channel.name)}>Remove</RowButton>
                  </td>
                </tr>
              );
            })}
          </DataTable>
        )}
      </DataState>
    </div>
  );
}

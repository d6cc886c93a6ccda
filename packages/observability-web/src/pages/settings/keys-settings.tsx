import { useState } from 'preact/hooks';
import { apiDelete, apiPost } from '../../api/api-client.js';
import type { CreatedKey, KeysResponse } from '../../api/api-types.js';
import { useApi } from '../../api/use-api.js';
import { CopyButton } from '../../components/copy-button.js';
import { DataState } from '../../components/data-state.js';
import { RowButton } from '../../components/row-button.js';
import { FormField } from '../../components/form-field.js';
import { useAction, useSubmit } from '../../components/use-submit.js';
import { formatTimestamp } from '../../format.js';
import { DataTable } from '../../components/data-table.js';

/** Ingestion keys: create (the secret is shown this once), list with last use, revoke. */
export function KeysSettings() {
  const keys = useApi<KeysResponse>('/api/v1/admin/keys');
  const [name, setName] = useState('');
  const [created, setCreated] = useState<CreatedKey | undefined>();
  const { error: revokeError, run } = useAction();
  const { busy, error, submit } = useSubmit(async () => {
    setCreated(await apiPost<CreatedKey>('/api/v1/admin/keys', { name: name.trim() }));
    setName('');
    keys.reload();
  });

  const revoke = async (id: string, keyName: string) => {
    if (!window.confirm(`Revoke the key "${keyName}"? Senders using it are refused from now on.`)) return;
    await run(async () => {
      await apiDelete(`/api/v1/admin/keys/${encodeURIComponent(id)}`);
      keys.reload();
    });
  };

  return (
    <div class="settings-section">
      <form class="form form-inline" onSubmit={submit} aria-label="Create a key">
        <FormField label="New key name" name="keyName" required maxLength={100} placeholder="e.g. checkout production" value={name} onInput={(event) => setName(event.currentTarget.value)} />
        <button type="submit" class="button button-primary" disabled={busy}>
          Create key
        </button>
        {error ? <p class="field-error" role="alert">{error}</p> : null}
      </form>
      {created ? (
        <div class="notice notice-secret" role="status" aria-label="New key">
          <p>
            <strong>Copy the key for “{created.name}” now.</strong> It is shown only this once; the service keeps only its hash.
          </p>
          <div class="secret-row">
            <code class="secret" data-testid="new-key-secret">
              {created.key}
            </code>
            <CopyButton text={created.key} />
            <RowButton onClick={() => setCreated(undefined)}>Done</RowButton>
          </div>
        </div>
      ) : null}
      {revokeError ? <p class="field-error" role="alert">{revokeError}</p> : null}
      <DataState state={keys}>
        {(data) =>
          data.items.length === 0 ? (
            <p class="muted">No keys yet. Create one for each application that sends data.</p>
          ) : (
            <DataTable label="Ingestion keys" columns={['Name', 'Key starts with', 'Created (UTC)', 'Last used (UTC)', 'Status', '']}>
              {data.items.map((key) => (
                <tr key={key.id}>
                  <td class="strong">{key.name}</td>
                  <td class="mono">{key.prefix}…</td>
                  <td>{formatTimestamp(key.createdAt)}</td>
                  <td>{key.lastUsedAt ? formatTimestamp(key.lastUsedAt) : 'Never'}</td>
                  <td>{key.revokedAt ? <span class="badge badge-bad">revoked</span> : <span class="badge badge-good">active</span>}</td>
                  <td class="actions">
                    {key.revokedAt ? null : (
                      <RowButton danger onClick={() => revoke(key.id, key.name)}>Revoke</RowButton>
                    )}
                  </td>
                </tr>
              ))}
            </DataTable>
          )
        }
      </DataState>
    </div>
  );
}

import { useState } from 'preact/hooks';
import { apiDelete, apiPost } from '../../api/api-client.js';
import type { CreatedInvitation, InvitationsResponse, Role } from '../../api/api-types.js';
import { useApi } from '../../api/use-api.js';
import { CopyButton } from '../../components/copy-button.js';
import { DataState } from '../../components/data-state.js';
import { RowButton } from '../../components/row-button.js';
import { FormField } from '../../components/form-field.js';
import { useAction, useSubmit } from '../../components/use-submit.js';
import { formatTimestamp } from '../../format.js';
import { DataTable } from '../../components/data-table.js';

/** The link an invited person opens; the token rides in the fragment, which never reaches a server log. */
function invitationLink(token: string): string {
  return `${window.location.origin}/accept-invitation#token=${encodeURIComponent(token)}`;
}

/** Invite people by email and role; a pending invitation can be withdrawn. Administrators only. */
export function InvitationsSettings() {
  const invitations = useApi<InvitationsResponse>('/api/v1/admin/invitations');
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [created, setCreated] = useState<CreatedInvitation | undefined>();
  const { error: problem, run } = useAction();
  const { busy, error, submit } = useSubmit(async () => {
    setCreated(await apiPost<CreatedInvitation>('/api/v1/admin/invitations', { email: email.trim(), role }));
    setEmail('');
    invitations.reload();
  });

  const withdraw = (id: string) =>
    run(async () => {
      await apiDelete(`/api/v1/admin/invitations/${encodeURIComponent(id)}`);
      invitations.reload();
    });

  return (
    <div class="settings-section">
      <form class="form form-inline" onSubmit={submit} aria-label="Invite someone">
        <FormField label="Email" type="email" name="inviteEmail" required value={email} onInput={(event) => setEmail(event.currentTarget.value)} />
        <label class="field">
          <span class="field-label">Role</span>
          <select name="role" value={role} onChange={(event) => setRole(event.currentTarget.value as Role)}>
            <option value="member">member</option>
            <option value="admin">admin</option>
          </select>
        </label>
        <button type="submit" class="button button-primary" disabled={busy}>
          Invite
        </button>
        {error ? <p class="field-error" role="alert">{error}</p> : null}
      </form>
      {created ? (
        <div class="notice notice-secret" role="status" aria-label="Invitation link">
          <p>
            <strong>Send this link to {created.email}.</strong> It is shown only this once and works until {formatTimestamp(created.expiresAt)} UTC.
          </p>
          <div class="secret-row">
            <code class="secret" data-testid="invitation-link">
              {invitationLink(created.token)}
            </code>
            <CopyButton text={invitationLink(created.token)} />
          </div>
        </div>
      ) : null}
      {problem ? <p class="field-error" role="alert">{problem}</p> : null}
      <DataState state={invitations}>
        {(data) =>
          data.items.length === 0 ? (
            <p class="muted">No invitations yet.</p>
          ) : (
            <DataTable label="Invitations" columns={['Email', 'Role', 'Status', 'Invited (UTC)', 'Expires (UTC)', '']}>
              {data.items.map((invitation) => (
                <tr key={invitation.id}>
                  <td>{invitation.email}</td>
                  <td>{invitation.role}</td>
                  <td>
                    <span class={invitation.status === 'accepted' ? 'badge badge-good' : invitation.status === 'pending' ? 'badge' : 'badge badge-bad'}>{invitation.status}</span>
                  </td>
                  <td>{formatTimestamp(invitation.createdAt)}</td>
                  <td>{formatTimestamp(invitation.expiresAt)}</td>
                  <td class="actions">
                    {invitation.status === 'pending' ? (
                      <RowButton danger onClick={() => withdraw(invitation.id)}>Withdraw</RowButton>
                    ) : null}
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

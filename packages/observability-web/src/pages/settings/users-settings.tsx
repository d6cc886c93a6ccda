import { apiPatch } from '../../api/api-client.js';
import type { Role, UsersResponse } from '../../api/api-types.js';
import { useSession } from '../../api/session.js';
import { useApi } from '../../api/use-api.js';
import { DataState } from '../../components/data-state.js';
import { RowButton } from '../../components/row-button.js';
import { useAction } from '../../components/use-submit.js';
import { formatTimestamp } from '../../format.js';
import { DataTable } from '../../components/data-table.js';

/** The team: change someone's role, deactivate (ends their sessions) or reactivate them. Administrators only. */
export function UsersSettings() {
  const { user: me } = useSession();
  const users = useApi<UsersResponse>('/api/v1/admin/users');
  const { error: problem, run } = useAction();

  const change = async (id: string, body: { role?: Role; active?: boolean }) => {
    await run(() => apiPatch(`/api/v1/admin/users/${encodeURIComponent(id)}`, body));
    users.reload();
  };

  return (
    <div class="settings-section">
      {problem ? <p class="field-error" role="alert">{problem}</p> : null}
      <DataState state={users}>
        {(data) => (
          <DataTable label="Users" columns={['Name', 'Email', 'Role', 'Status', 'Joined (UTC)', '']}>
            {data.items.map((user) => {
              const self = user.id === me?.id;
              return (
                <tr key={user.id}>
                  <td class="strong">
                    {user.name}
                    {self ? <span class="muted"> (you)</span> : null}
                  </td>
                  <td>{user.email}</td>
                  <td>
                    <select aria-label={`Role of ${user.email}`} value={user.role} disabled={self} onChange={(event) => change(user.id, { role: event.currentTarget.value as Role })}>
                      <option value="admin">admin</option>
                      <option value="member">member</option>
                    </select>
                  </td>
                  <td>{user.active ? <span class="badge badge-good">active</span> : <span class="badge badge-bad">deactivated</span>}</td>
                  <td>{formatTimestamp(user.createdAt)}</td>
                  <td class="actions">
                    {self ? null : user.active ? (
                      <RowButton danger onClick={() => window.confirm(`Deactivate ${user.email}? They are signed out at once.`) && change(user.id, { active: false })}>Deactivate</RowButton>
                    ) : (
                      <RowButton onClick={() => change(user.id, { active: true })}>Reactivate</RowButton>
                    )}
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

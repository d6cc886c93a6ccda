import { useState } from 'preact/hooks';
import { apiDelete, apiPatch } from '../../api/api-client.js';
import type { Role, UsersResponse } from '../../api/api-types.js';
import { useSession } from '../../api/session.js';
import { useApi } from '../../api/use-api.js';
import { DataState } from '../../components/data-state.js';

/** The team: change a member's role, remove someone. Administrators only. */
export function UsersSettings() {
  const { user: me } = useSession();
  const users = useApi<UsersResponse>('/api/v1/admin/users');
  const [problem, setProblem] = useState<string | undefined>();

  const act = async (action: () => Promise<unknown>) => {
    setProblem(undefined);
    try {
      await action();
      users.reload();
    } catch (caught) {
      setProblem(caught instanceof Error ? caught.message : String(caught));
    }
  };

  return (
    <div class="settings-section">
      {problem ? <p class="field-error" role="alert">{problem}</p> : null}
      <DataState state={users}>
        {(data) => (
          <div class="table-wrap">
            <table class="table" aria-label="Users">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Email</th>
                  <th>Role</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {data.users.map((user) => (
                  <tr key={user.id}>
                    <td class="strong">
                      {user.name}
                      {user.id === me?.id ? <span class="muted"> (you)</span> : null}
                    </td>
                    <td>{user.email}</td>
                    <td>
                      <select
                        aria-label={`Role of ${user.email}`}
                        value={user.role}
                        disabled={user.id === me?.id}
                        onChange={(event) => act(() => apiPatch(`/api/v1/admin/users/${encodeURIComponent(user.id)}`, { role: event.currentTarget.value as Role }))}
                      >
                        <option value="admin">admin</option>
                        <option value="member">member</option>
                      </select>
                    </td>
                    <td class="actions">
                      {user.id === me?.id ? null : (
                        <button
                          type="button"
                          class="button button-small button-danger"
                          onClick={() => window.confirm(`Remove ${user.email}? They are signed out at once.`) && act(() => apiDelete(`/api/v1/admin/users/${encodeURIComponent(user.id)}`))}
                        >
                          Remove
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </DataState>
    </div>
  );
}

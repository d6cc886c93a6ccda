import { useState } from 'preact/hooks';
import { apiPost } from '../../api/api-client.js';
import { CurrentPasswordField, NewPasswordField } from '../../components/form-field.js';
import { useSubmit } from '../../components/use-submit.js';

/** Change one's own password; the current one is required. */
export function PasswordSettings() {
  const [currentPassword, setCurrentPassword] = useState('');
  const [newPassword, setNewPassword] = useState('');
  const [done, setDone] = useState(false);
  const { busy, error, submit } = useSubmit(async () => {
    setDone(false);
    await apiPost('/api/v1/auth/password', { currentPassword, newPassword }, { redirectOnUnauthorized: false });
    setCurrentPassword('');
    setNewPassword('');
    setDone(true);
  });
  return (
    <div class="settings-section">
      <form class="form" onSubmit={submit} aria-label="Change password">
        <CurrentPasswordField label="Current password" name="currentPassword" value={currentPassword} onValue={setCurrentPassword} />
        <NewPasswordField label="New password" name="newPassword" value={newPassword} onValue={setNewPassword} />
        <button type="submit" class="button button-primary" disabled={busy}>
          Change password
        </button>
        {done ? <p class="notice-inline" role="status">Password changed.</p> : null}
        {error ? <p class="field-error" role="alert">{error}</p> : null}
      </form>
    </div>
  );
}

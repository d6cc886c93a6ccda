import { useState } from 'preact/hooks';
import { apiPost } from '../api/api-client.js';
import type { SessionResponse } from '../api/api-types.js';
import { useSession } from '../api/session.js';
import { AuthCard } from '../components/auth-card.js';
import { FormField, FormSubmit, NewPasswordField } from '../components/form-field.js';
import { useSubmit } from '../components/use-submit.js';
import { linkToken } from '../state/link-token.js';
import { navigate, useLocation } from '../state/location.js';

/** The link an administrator passes on: `/accept-invitation#token=…`; creates the account and signs in. */
export function AcceptInvitationPage() {
  const { signedIn } = useSession();
  const token = linkToken(window.location.hash, useLocation().search) ?? '';
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, submit } = useSubmit(async () => {
    const session = await apiPost<SessionResponse>('/api/v1/auth/invitations/accept', { token, name, password }, { redirectOnUnauthorized: false });
    signedIn(session);
    navigate('/', { replace: true });
  });
  if (!token) return <AuthCard title="Invitation link incomplete" intro="This link has no invitation token. Open the full link you were sent, or ask for a new invitation." />;
  return (
    <AuthCard title="Join the team" intro="You have been invited to the observability dashboard. Choose your name and password.">
      <form class="form" onSubmit={submit}>
        <FormField label="Name" name="name" autoComplete="name" required value={name} onInput={(event) => setName(event.currentTarget.value)} />
        <NewPasswordField value={password} onValue={setPassword} />
        <FormSubmit error={error} busy={busy} label={busy ? 'Joining…' : 'Accept invitation'} />
      </form>
    </AuthCard>
  );
}

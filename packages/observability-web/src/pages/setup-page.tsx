import { useState } from 'preact/hooks';
import { ApiRequestError, apiPost } from '../api/api-client.js';
import type { SessionResponse } from '../api/api-types.js';
import { useSession } from '../api/session.js';
import { AuthCard } from '../components/auth-card.js';
import { FormField, FormSubmit, NewPasswordField } from '../components/form-field.js';
import { Link } from '../components/link.js';
import { useSubmit } from '../components/use-submit.js';
import { navigate } from '../state/location.js';

/** First run: creates the first administrator (the service refuses once any user exists). */
export function SetupPage() {
  const { signedIn } = useSession();
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [alreadySetUp, setAlreadySetUp] = useState(false);
  const { busy, error, submit } = useSubmit(async () => {
    try {
      const session = await apiPost<SessionResponse>('/api/v1/auth/setup', { email, password, name }, { redirectOnUnauthorized: false });
      signedIn(session);
      navigate('/settings/keys', { replace: true });
    } catch (caught) {
      if (caught instanceof ApiRequestError && caught.code === 'already-set-up') setAlreadySetUp(true);
      else throw caught;
    }
  });
  if (alreadySetUp) {
    return (
      <AuthCard title="Already set up" intro="This service already has an administrator. Sign in, or ask an administrator for an invitation.">
        <Link class="button button-primary" href="/login">
          Go to sign in
        </Link>
      </AuthCard>
    );
  }
  return (
    <AuthCard title="Set up the service" intro="Create the first administrator account. You can invite the rest of the team afterwards.">
      <form class="form" onSubmit={submit}>
        <FormField label="Name" name="name" autoComplete="name" required value={name} onInput={(event) => setName(event.currentTarget.value)} />
        <FormField label="Email" type="email" name="email" autoComplete="username" required value={email} onInput={(event) => setEmail(event.currentTarget.value)} />
        <NewPasswordField value={password} onValue={setPassword} />
        <FormSubmit error={error} busy={busy} label={busy ? 'Creating…' : 'Create administrator'} />
      </form>
    </AuthCard>
  );
}

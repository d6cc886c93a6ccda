import { useState } from 'preact/hooks';
import { apiPost } from '../api/api-client.js';
import type { SessionResponse } from '../api/api-types.js';
import { useSession } from '../api/session.js';
import { AuthCard } from '../components/auth-card.js';
import { CurrentPasswordField, FormField, FormSubmit } from '../components/form-field.js';
import { Link } from '../components/link.js';
import { useSubmit } from '../components/use-submit.js';
import { navigate, useLocation } from '../state/location.js';
import { safeNextPath } from '../state/routes.js';

export function LoginPage() {
  const { signedIn } = useSession();
  const { search } = useLocation();
  const next = safeNextPath(search.get('next'));
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, submit } = useSubmit(async () => {
    const session = await apiPost<SessionResponse>('/api/v1/auth/login', { email, password }, { redirectOnUnauthorized: false });
    signedIn(session);
    navigate(next, { replace: true });
  });
  return (
    <AuthCard title="Sign in">
      <form class="form" onSubmit={submit}>
        <FormField label="Email" type="email" name="email" autoComplete="username" required value={email} onInput={(event) => setEmail(event.currentTarget.value)} />
        <CurrentPasswordField value={password} onValue={setPassword} />
        <FormSubmit error={error} busy={busy} label={busy ? 'Signing in…' : 'Sign in'} />
      </form>
      <p class="auth-links">
        <Link href="/reset-password">Forgot your password?</Link>
        <Link href="/setup">First run? Set up the first administrator</Link>
      </p>
    </AuthCard>
  );
}

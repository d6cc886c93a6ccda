import { useState } from 'preact/hooks';
import { apiPost } from '../api/api-client.js';
import { AuthCard } from '../components/auth-card.js';
import { FormField, FormSubmit, NewPasswordField } from '../components/form-field.js';
import { Link } from '../components/link.js';
import { useSubmit } from '../components/use-submit.js';
import { linkToken } from '../state/link-token.js';
import { useLocation } from '../state/location.js';

/** Without a token: asks for a reset mail. With `#token=` (the mailed link): sets a new password. */
export function PasswordResetPage() {
  const token = linkToken(window.location.hash, useLocation().search);
  return token ? <ConfirmReset token={token} /> : <RequestReset />;
}

function RequestReset() {
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState(false);
  const { busy, error, submit } = useSubmit(async () => {
    await apiPost('/api/v1/auth/password-reset/request', { email }, { redirectOnUnauthorized: false });
    setSent(true);
  });
  if (sent) {
    return (
      <AuthCard title="Check your mail" intro={`If ${email} has an account, a link to choose a new password is on its way.`}>
        <Link href="/login">Back to sign in</Link>
      </AuthCard>
    );
  }
  return (
    <AuthCard title="Reset your password" intro="Enter your account's email and we will send you a link to choose a new password.">
      <form class="form" onSubmit={submit}>
        <FormField label="Email" type="email" name="email" autoComplete="username" required value={email} onInput={(event) => setEmail(event.currentTarget.value)} />
        <FormSubmit error={error} busy={busy} label="Send reset link" />
      </form>
      <p class="auth-links">
        <Link href="/login">Back to sign in</Link>
      </p>
    </AuthCard>
  );
}

function ConfirmReset({ token }: { token: string }) {
  const [password, setPassword] = useState('');
  const [done, setDone] = useState(false);
  const { busy, error, submit } = useSubmit(async () => {
    await apiPost('/api/v1/auth/password-reset/confirm', { token, password }, { redirectOnUnauthorized: false });
    setDone(true);
  });
  if (done) {
    return (
      <AuthCard title="Password changed" intro="Your new password is set. Sign in with it.">
        <Link class="button button-primary" href="/login">
          Sign in
        </Link>
      </AuthCard>
    );
  }
  return (
    <AuthCard title="Choose a new password">
      <form class="form" onSubmit={submit}>
        <NewPasswordField label="New password" value={password} onValue={setPassword} />
        <FormSubmit error={error} busy={busy} label="Set password" />
      </form>
    </AuthCard>
  );
}

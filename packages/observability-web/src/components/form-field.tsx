import type { JSX } from 'preact';

type FieldProps = JSX.InputHTMLAttributes<HTMLInputElement> & { label: string; hint?: string };

/** A labelled input; the label wraps the input so tests and screen readers find it by its text. */
export function FormField({ label, hint, ...input }: FieldProps) {
  return (
    <label class="field">
      <span class="field-label">{label}</span>
      <input class="input" {...input} />
      {hint ? <span class="field-hint">{hint}</span> : null}
    </label>
  );
}

/** Minimum length of a new password; the service refuses shorter ones. */
export const minPasswordLength = 12;

type NewPasswordProps = { label?: string; name?: string; value: string; onValue: (value: string) => void };

/** The field for choosing a password, with the service's length rule stated up front. */
export function NewPasswordField({ label = 'Password', name = 'password', value, onValue }: NewPasswordProps) {
  return (
    <FormField
      label={label}
      type="password"
      name={name}
      autoComplete="new-password"
      required
      minLength={minPasswordLength}
      hint={`At least ${minPasswordLength} characters.`}
      value={value}
      onInput={(event) => onValue(event.currentTarget.value)}
    />
  );
}

/** The field for one's current password (signing in, or confirming a change). */
export function CurrentPasswordField({ label = 'Password', name = 'password', value, onValue }: NewPasswordProps) {
  return <FormField label={label} type="password" name={name} autoComplete="current-password" required value={value} onInput={(event) => onValue(event.currentTarget.value)} />;
}

/** A form's error line (when there is one) and its submit button, disabled while busy. */
export function FormSubmit({ error, busy, label }: { error: string | null | undefined; busy: boolean; label: string }) {
  return (
    <>
      {error ? <p class="field-error" role="alert">{error}</p> : null}
      <button type="submit" class="button button-primary" disabled={busy}>
        {label}
      </button>
    </>
  );
}

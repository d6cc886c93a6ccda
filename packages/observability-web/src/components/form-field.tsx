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

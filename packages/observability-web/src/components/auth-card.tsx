import type { ComponentChildren } from 'preact';

/** The centred card the signed-out pages (setup, sign-in, reset, invitation) share. */
export function AuthCard({ title, intro, children }: { title: string; intro?: string; children?: ComponentChildren }) {
  return (
    <main class="auth-page">
      <div class="auth-card">
        <div class="brand brand-large" aria-hidden="true">
          <span class="brand-mark" />
          Observability
        </div>
        <h1>{title}</h1>
        {intro ? <p class="muted">{intro}</p> : null}
        {children}
      </div>
    </main>
  );
}

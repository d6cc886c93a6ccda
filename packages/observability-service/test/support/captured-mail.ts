import { vi } from 'vitest';
import type { App } from '@playstack/server-kit';

/**
 * Collects what the log mailer writes (no SMTP_URL configured): the way an operator would read
 * a reset mail from the server log.
 */
export function captureLoggedMail(app: App): { tokens(): string[]; messages(): Array<{ to: string; subject: string; text: string }> } {
  const warn = vi.spyOn(app.log, 'warn');
  const messages = () =>
    warn.mock.calls
      .map(([first]) => (first && typeof first === 'object' && 'mail' in first ? (first as { mail: { to: string; subject: string; text: string } }).mail : undefined))
      .filter((mail) => mail !== undefined);
  return {
    messages,
    tokens: () => messages().map((mail) => /Reset token: (\S+)/.exec(mail.text)?.[1] ?? ''),
  };
}

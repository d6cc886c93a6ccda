import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { App } from '@playstack/server-kit';

/** A signed-in browser: its session cookie and CSRF token, for `app.inject`. */
export interface BrowserSession {
  cookie: string;
  csrfToken: string;
  user: { id: string; email: string; name: string; role: 'admin' | 'member' };
}

export const firstAdmin = { email: 'admin@example.com', password: 'correct horse battery staple', name: 'Ada Admin' };

/** The `obs_session` value a response set, or undefined. */
export function sessionCookieFrom(response: LightMyRequestResponse): string | undefined {
  return response.cookies.find((c) => c.name === 'obs_session')?.value;
}

/** Turns a sign-in response (setup, login, invitation acceptance) into a session. */
export function browserSessionFrom(response: LightMyRequestResponse): BrowserSession {
  if (response.statusCode !== 200) throw new Error(`sign-in failed: ${response.statusCode} ${response.body}`);
  const cookie = sessionCookieFrom(response);
  if (!cookie) throw new Error('sign-in set no obs_session cookie');
  const { user, csrfToken } = response.json();
  return { cookie, csrfToken, user };
}

/** Creates the first admin through `POST /api/v1/auth/setup` and returns their session. */
export async function setUpFirstAdmin(app: App, admin = firstAdmin): Promise<BrowserSession> {
  return browserSessionFrom(await app.inject({ method: 'POST', url: '/api/v1/auth/setup', payload: admin }));
}

export async function signIn(app: App, email: string, password: string): Promise<BrowserSession> {
  return browserSessionFrom(await app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email, password } }));
}

/** The first admin's session: created on a service that has no user yet, signed in on one that has them. */
export async function firstAdminSession(app: App, admin = firstAdmin): Promise<BrowserSession> {
  const setup = await app.inject({ method: 'POST', url: '/api/v1/auth/setup', payload: admin });
  return setup.statusCode === 200 ? browserSessionFrom(setup) : signIn(app, admin.email, admin.password);
}

/** `app.inject` as a signed-in browser: the cookie always, the CSRF header on state-changing methods. */
export function asBrowser(app: App, session: BrowserSession, options: InjectOptions): Promise<LightMyRequestResponse> {
  const method = (options.method ?? 'GET').toUpperCase();
  const headers: Record<string, string> = { ...(options.headers as Record<string, string> | undefined) };
  if (!['GET', 'HEAD', 'OPTIONS'].includes(method) && headers['x-csrf-token'] === undefined) headers['x-csrf-token'] = session.csrfToken;
  return app.inject({ ...options, headers, cookies: { obs_session: session.cookie, ...options.cookies } });
}

/** Invites a user with `role` as `admin` and signs them in by accepting the invitation. */
export async function invitedUser(app: App, admin: BrowserSession, email: string, role: 'admin' | 'member' = 'member'): Promise<BrowserSession> {
  const invitation = await asBrowser(app, admin, { method: 'POST', url: '/api/v1/admin/invitations', payload: { email, role } });
  if (invitation.statusCode !== 201) throw new Error(`invitation failed: ${invitation.statusCode} ${invitation.body}`);
  return browserSessionFrom(
    await app.inject({ method: 'POST', url: '/api/v1/auth/invitations/accept', payload: { token: invitation.json().token, name: email.split('@')[0], password: 'a long enough password' } }),
  );
}

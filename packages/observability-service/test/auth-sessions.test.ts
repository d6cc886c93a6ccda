import argon2 from 'argon2';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock, type App } from '@playstack/server-kit';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { asBrowser, firstAdmin, sessionCookieFrom, setUpFirstAdmin, signIn, type BrowserSession } from './support/browser-session.js';
import { buildTestApp } from './support/test-app.js';

describeEachDatabase('dashboard sign-in and sessions', (database) => {
  const clock = new ManualClock('2026-11-21T10:00:00.000Z');
  let app: App;
  let admin: BrowserSession;
  beforeAll(async () => {
    app = await buildTestApp(database(), { SESSION_IDLE_TIMEOUT_MINUTES: '30', SESSION_MAX_AGE_HOURS: '2' }, { clock });
  });
  afterAll(async () => {
    await app.close();
  });

  it('answers 401 on session endpoints while signed out', async () => {
    for (const [method, url] of [['GET', '/api/v1/auth/session'], ['POST', '/api/v1/auth/logout'], ['POST', '/api/v1/auth/password']] as const) {
      const response = await app.inject({ method, url, payload: method === 'POST' ? {} : undefined });
      expect(response.statusCode, `${method} ${url}`).toBe(401);
      expect(response.json().error.code).toBe('unauthorized');
    }
  });

  it('answers 400 naming the field, or 415, to bad auth input', async () => {
    const cases = [
      ['/api/v1/auth/setup', { email: 'not-an-email', password: 'long enough password', name: 'A' }, 'body.email'],
      ['/api/v1/auth/setup', { email: 'a@example.com', password: 'short', name: 'A' }, 'body.password'],
      ['/api/v1/auth/setup', { email: 'a@example.com', password: 'long enough password', name: '   ' }, 'body.name'],
      ['/api/v1/auth/login', { email: 'a@example.com' }, 'body.password'],
      ['/api/v1/auth/login', { email: 'a@example.com', password: 'x', remember: true }, 'remember'],
      ['/api/v1/auth/password-reset/request', {}, 'body.email'],
      ['/api/v1/auth/password-reset/confirm', { token: 'short', password: 'long enough password' }, 'body.token'],
      ['/api/v1/auth/invitations/accept', { token: 'x'.repeat(43), name: 'N', password: 1234567890123 }, 'body.password'],
    ] as const;
    for (const [url, payload, field] of cases) {
      const response = await app.inject({ method: 'POST', url, payload });
      expect(response.statusCode, `${url} ${JSON.stringify(payload)}`).toBe(400);
      expect(response.json().error.code).toBe('invalid-request');
      expect(response.json().error.message).toContain(field);
    }
    const form = await app.inject({ method: 'POST', url: '/api/v1/auth/login', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'email=a&password=b' });
    expect(form.statusCode).toBe(415);
  });

  it('creates the first admin with setup and signs them in', async () => {
    const response = await app.inject({ method: 'POST', url: '/api/v1/auth/setup', payload: firstAdmin });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      user: { id: expect.any(String), email: firstAdmin.email, name: firstAdmin.name, role: 'admin' },
      csrfToken: expect.any(String),
    });
    admin = { cookie: sessionCookieFrom(response)!, csrfToken: response.json().csrfToken, user: response.json().user };
    const session = await asBrowser(app, admin, { method: 'GET', url: '/api/v1/auth/session' });
    expect(session.statusCode).toBe(200);
    expect(session.json()).toEqual({ user: admin.user, csrfToken: admin.csrfToken });
  });

  it('refuses setup once a user exists, forever', async () => {
    const response = await app.inject({ method: 'POST', url: '/api/v1/auth/setup', payload: { ...firstAdmin, email: 'other@example.com' } });
    expect(response.statusCode).toBe(409);
    expect(response.json().error.code).toBe('already-set-up');
  });

  it('sets obs_session HttpOnly, SameSite=Lax, Path=/ and not Secure over plain HTTP', async () => {
    const response = await app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email: firstAdmin.email, password: firstAdmin.password } });
    const cookie = response.cookies.find((c) => c.name === 'obs_session')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(cookie.secure).toBeUndefined();
    expect(cookie.value.length).toBeGreaterThanOrEqual(22);
  });

  it('issues a new session id at every sign-in', async () => {
    const first = await signIn(app, firstAdmin.email, firstAdmin.password);
    const second = await signIn(app, firstAdmin.email, firstAdmin.password);
    expect(second.cookie).not.toBe(first.cookie);
    expect(second.csrfToken).not.toBe(first.csrfToken);
    expect(second.cookie).not.toBe(admin.cookie);
  });

  it('ends the old session when signing in over it', async () => {
    const old = await signIn(app, firstAdmin.email, firstAdmin.password);
    const response = await asBrowser(app, old, {
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: firstAdmin.email, password: firstAdmin.password },
    });
    expect(response.statusCode).toBe(200);
    expect(sessionCookieFrom(response)).not.toBe(old.cookie);
    expect((await asBrowser(app, old, { method: 'GET', url: '/api/v1/auth/session' })).statusCode).toBe(401);
  });

  it('upgrades a password hash made with weaker parameters at sign-in', async () => {
    const weak = await argon2.hash(firstAdmin.password, { type: argon2.argon2id, memoryCost: 4096, timeCost: 1, parallelism: 1 });
    await app.database.db.updateTable('accounts').set({ password_hash: weak }).where('email', '=', firstAdmin.email).execute();
    await signIn(app, firstAdmin.email, firstAdmin.password);
    const stored = await app.database.db.selectFrom('accounts').select('password_hash').where('email', '=', firstAdmin.email).executeTakeFirstOrThrow();
    expect(stored.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,/);
  });

  it('answers the same for an unknown email and a wrong password', async () => {
    const unknown = await app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email: 'nobody@example.com', password: 'whatever password' } });
    const wrong = await app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email: firstAdmin.email, password: 'wrong password!!' } });
    expect(unknown.statusCode).toBe(401);
    expect(wrong.statusCode).toBe(401);
    expect(unknown.json().error.code).toBe('invalid-credentials');
    expect(unknown.json().error.message).toBe(wrong.json().error.message);
    expect(sessionCookieFrom(unknown)).toBeUndefined();
  });

  it('refuses a state-changing request without, or with a wrong, CSRF token (403 csrf-failed)', async () => {
    const session = await signIn(app, firstAdmin.email, firstAdmin.password);
    const missing = await app.inject({ method: 'POST', url: '/api/v1/auth/logout', cookies: { obs_session: session.cookie } });
    expect(missing.statusCode).toBe(403);
    expect(missing.json().error.code).toBe('csrf-failed');
    const wrong = await asBrowser(app, session, { method: 'POST', url: '/api/v1/auth/logout', headers: { 'x-csrf-token': admin.csrfToken } });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json().error.code).toBe('csrf-failed');
    expect((await asBrowser(app, session, { method: 'GET', url: '/api/v1/auth/session' })).statusCode).toBe(200);
  });

  it('refuses cross-site and foreign-origin state changes even with the right token', async () => {
    const session = await signIn(app, firstAdmin.email, firstAdmin.password);
    const crossSite = await asBrowser(app, session, { method: 'POST', url: '/api/v1/auth/logout', headers: { 'sec-fetch-site': 'cross-site' } });
    expect(crossSite.statusCode).toBe(403);
    expect(crossSite.json().error.code).toBe('csrf-failed');
    const foreign = await asBrowser(app, session, { method: 'POST', url: '/api/v1/auth/logout', headers: { origin: 'https://evil.example' } });
    expect(foreign.statusCode).toBe(403);
    const loginFromElsewhere = await app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      headers: { origin: 'https://evil.example' },
      payload: { email: firstAdmin.email, password: firstAdmin.password },
    });
    expect(loginFromElsewhere.statusCode).toBe(403);
    const sameOrigin = await asBrowser(app, session, {
      method: 'POST',
      url: '/api/v1/auth/logout',
      headers: { origin: 'http://localhost:80', host: 'localhost:80', 'sec-fetch-site': 'same-origin' },
    });
    expect(sameOrigin.statusCode).toBe(200);
  });

  it('ends the session on the server at logout', async () => {
    const session = await signIn(app, firstAdmin.email, firstAdmin.password);
    const response = await asBrowser(app, session, { method: 'POST', url: '/api/v1/auth/logout' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ signedOut: true });
    expect(response.cookies.find((c) => c.name === 'obs_session')?.value).toBe('');
    // Replaying the old cookie (as a thief who copied it would) finds no session.
    expect((await asBrowser(app, session, { method: 'GET', url: '/api/v1/auth/session' })).statusCode).toBe(401);
  });

  it('ends a session after the idle timeout', async () => {
    const session = await signIn(app, firstAdmin.email, firstAdmin.password);
    clock.advance(29 * 60_000);
    expect((await asBrowser(app, session, { method: 'GET', url: '/api/v1/auth/session' })).statusCode).toBe(200);
    clock.advance(29 * 60_000);
    expect((await asBrowser(app, session, { method: 'GET', url: '/api/v1/auth/session' })).statusCode).toBe(200);
    clock.advance(31 * 60_000);
    expect((await asBrowser(app, session, { method: 'GET', url: '/api/v1/auth/session' })).statusCode).toBe(401);
  });

  it('ends a session at its absolute lifetime however active', async () => {
    const session = await signIn(app, firstAdmin.email, firstAdmin.password);
    for (let step = 0; step < 5; step += 1) {
      clock.advance(20 * 60_000);
      expect((await asBrowser(app, session, { method: 'GET', url: '/api/v1/auth/session' })).statusCode).toBe(200);
    }
    clock.advance(20 * 60_000);
    expect((await asBrowser(app, session, { method: 'GET', url: '/api/v1/auth/session' })).statusCode).toBe(401);
  });
});

describeEachDatabase('session cookie and origins behind an HTTPS proxy', (database) => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp(database(), { TRUST_PROXY: 'true', PUBLIC_URL: 'https://dash.example.com/' });
    await setUpFirstAdmin(app);
  });
  afterAll(async () => {
    await app.close();
  });

  it('marks the cookie Secure when X-Forwarded-Proto says https', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      headers: { 'x-forwarded-proto': 'https' },
      payload: { email: firstAdmin.email, password: firstAdmin.password },
    });
    expect(response.cookies.find((c) => c.name === 'obs_session')).toMatchObject({ secure: true, httpOnly: true, sameSite: 'Lax' });
  });

  it("accepts state changes from PUBLIC_URL's origin and the proxied request's own origin", async () => {
    const session = await signIn(app, firstAdmin.email, firstAdmin.password);
    const fromPublicUrl = await asBrowser(app, session, { method: 'POST', url: '/api/v1/auth/logout', headers: { origin: 'https://dash.example.com' } });
    expect(fromPublicUrl.statusCode).toBe(200);
    const again = await signIn(app, firstAdmin.email, firstAdmin.password);
    const proxied = await asBrowser(app, again, {
      method: 'POST',
      url: '/api/v1/auth/logout',
      headers: { origin: 'https://obs.internal.example', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'obs.internal.example' },
    });
    expect(proxied.statusCode).toBe(200);
  });
});

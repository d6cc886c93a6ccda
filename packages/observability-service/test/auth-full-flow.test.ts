import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock, type App } from '@playstack/server-kit';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { asBrowser, browserSessionFrom, firstAdmin, setUpFirstAdmin, signIn, type BrowserSession } from './support/browser-session.js';
import { captureLoggedMail } from './support/captured-mail.js';
import { buildTestApp } from './support/test-app.js';

const member = { email: 'Mia.Member@Example.com', name: 'Mia Member', password: 'first member password' };
const changedPassword = 'second member password';
const resetPassword = 'third member password after reset';

/**
 * Every text or binary value in every table of the app's database, as text. SQLite's virtual
 * tables (the contentless FTS5 index of logs, which cannot be scanned) are read through the
 * shadow tables that store them, which are ordinary tables listed here.
 */
async function everyStoredValue(app: App): Promise<string[]> {
  const { db, dialect } = app.database;
  const tables =
    dialect === 'sqlite'
      ? (await sql<{ name: string }>`select name from sqlite_master where type = 'table' and sql not like 'CREATE VIRTUAL TABLE%'`.execute(db)).rows.map((r) => r.name)
      : (await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(db)).rows.map((r) => r.name);
  const values: string[] = [];
  for (const table of tables) {
    const rows = (await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db)).rows;
    for (const row of rows) {
      for (const value of Object.values(row)) {
        if (typeof value === 'string') values.push(value);
        else if (value instanceof Uint8Array) values.push(Buffer.from(value).toString('utf8'), Buffer.from(value).toString('base64url'));
      }
    }
  }
  return values;
}

describeEachDatabase('setup, invitation, sign-in, password change and reset', (database) => {
  const clock = new ManualClock('2026-11-21T10:00:00.000Z');
  const secrets: string[] = [firstAdmin.password, member.password, changedPassword, resetPassword];
  let app: App;
  let mail: ReturnType<typeof captureLoggedMail>;
  let admin: BrowserSession;
  let memberSession: BrowserSession;
  let invitationToken: string;
  let resetToken: string;
  const remember = (session: BrowserSession) => {
    secrets.push(session.cookie, session.csrfToken);
    return session;
  };

  beforeAll(async () => {
    app = await buildTestApp(database(), {}, { clock });
    mail = captureLoggedMail(app);
  });
  afterAll(async () => {
    await app.close();
  });

  it('sets up the first admin', async () => {
    admin = remember(await setUpFirstAdmin(app));
    expect(admin.user.role).toBe('admin');
  });

  it('invites a member; the token is shown once and the list does not show it', async () => {
    const response = await asBrowser(app, admin, { method: 'POST', url: '/api/v1/admin/invitations', payload: { email: member.email, role: 'member' } });
    expect(response.statusCode).toBe(201);
    const body = response.json();
    expect(body).toEqual({ id: expect.any(String), email: 'mia.member@example.com', role: 'member', expiresAt: '2026-11-28T10:00:00.000Z', token: expect.any(String) });
    invitationToken = body.token;
    secrets.push(invitationToken);
    const list = await asBrowser(app, admin, { method: 'GET', url: '/api/v1/admin/invitations' });
    expect(list.json().items).toEqual([expect.objectContaining({ id: body.id, status: 'pending' })]);
    expect(list.body).not.toContain(invitationToken);
  });

  it('accepts the invitation with a name and password, and signs in', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/auth/invitations/accept',
      payload: { token: invitationToken, name: member.name, password: member.password },
    });
    memberSession = remember(browserSessionFrom(response));
    expect(memberSession.user).toMatchObject({ email: 'mia.member@example.com', name: member.name, role: 'member' });
  });

  it('refuses the invitation token a second time', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/auth/invitations/accept',
      payload: { token: invitationToken, name: 'Someone Else', password: 'another password here' },
    });
    expect(response.statusCode).toBe(401);
    expect(response.json().error.code).toBe('invalid-grant');
  });

  it('signs the member in with email (any case) and password', async () => {
    remember(await signIn(app, 'MIA.member@example.com', member.password));
  });

  it('refuses a member on every admin endpoint with 403', async () => {
    const attempts = [
      ['GET', '/api/v1/admin/users'],
      ['PATCH', `/api/v1/admin/users/${admin.user.id}`],
      ['GET', '/api/v1/admin/invitations'],
      ['POST', '/api/v1/admin/invitations'],
      ['DELETE', '/api/v1/admin/invitations/x'],
      ['GET', '/api/v1/admin/keys'],
      ['POST', '/api/v1/admin/keys'],
      ['DELETE', '/api/v1/admin/keys/x'],
      ['GET', '/api/v1/admin/retention'],
      ['PUT', '/api/v1/admin/retention'],
    ] as const;
    for (const [method, url] of attempts) {
      const response = await asBrowser(app, memberSession, { method, url, payload: method === 'GET' || method === 'DELETE' ? undefined : {} });
      expect(response.statusCode, `${method} ${url}`).toBe(403);
      expect(response.json().error.code).toBe('forbidden');
    }
  });

  it("changes the password given the current one, ending the member's other sessions", async () => {
    const other = remember(await signIn(app, member.email, member.password));
    const wrong = await asBrowser(app, memberSession, { method: 'POST', url: '/api/v1/auth/password', payload: { currentPassword: 'not the password', newPassword: changedPassword } });
    expect(wrong.statusCode).toBe(403);
    const response = await asBrowser(app, memberSession, { method: 'POST', url: '/api/v1/auth/password', payload: { currentPassword: member.password, newPassword: changedPassword } });
    expect(response.statusCode).toBe(200);
    expect((await asBrowser(app, memberSession, { method: 'GET', url: '/api/v1/auth/session' })).statusCode).toBe(200);
    expect((await asBrowser(app, other, { method: 'GET', url: '/api/v1/auth/session' })).statusCode).toBe(401);
    expect((await app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email: member.email, password: member.password } })).statusCode).toBe(401);
    remember(await signIn(app, member.email, changedPassword));
  });

  it('answers a reset request the same whether or not the email has an account', async () => {
    const known = await app.inject({ method: 'POST', url: '/api/v1/auth/password-reset/request', payload: { email: member.email } });
    const unknown = await app.inject({ method: 'POST', url: '/api/v1/auth/password-reset/request', payload: { email: 'nobody@example.com' } });
    expect(known.statusCode).toBe(202);
    expect(unknown.statusCode).toBe(202);
    expect(known.body).toBe(unknown.body);
    await expect.poll(() => mail.messages().length).toBe(1);
    expect(mail.messages()[0]?.to).toBe('mia.member@example.com');
    resetToken = mail.tokens()[0]!;
    expect(resetToken.length).toBeGreaterThanOrEqual(43);
    secrets.push(resetToken);
  });

  it('sets the new password with the reset token and ends every session of the user', async () => {
    const response = await app.inject({ method: 'POST', url: '/api/v1/auth/password-reset/confirm', payload: { token: resetToken, password: resetPassword } });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ passwordReset: true });
    expect((await asBrowser(app, memberSession, { method: 'GET', url: '/api/v1/auth/session' })).statusCode).toBe(401);
    expect((await app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email: member.email, password: changedPassword } })).statusCode).toBe(401);
    memberSession = remember(await signIn(app, member.email, resetPassword));
  });

  it('refuses a used reset token', async () => {
    const response = await app.inject({ method: 'POST', url: '/api/v1/auth/password-reset/confirm', payload: { token: resetToken, password: 'yet another password' } });
    expect(response.statusCode).toBe(401);
    expect(response.json().error.code).toBe('invalid-grant');
  });

  it('refuses an expired reset token', async () => {
    await app.inject({ method: 'POST', url: '/api/v1/auth/password-reset/request', payload: { email: member.email } });
    await expect.poll(() => mail.tokens().length).toBe(2);
    const token = mail.tokens()[1]!;
    secrets.push(token);
    clock.advance(31 * 60_000);
    const response = await app.inject({ method: 'POST', url: '/api/v1/auth/password-reset/confirm', payload: { token, password: 'yet another password' } });
    expect(response.statusCode).toBe(401);
    expect(response.json().error.code).toBe('invalid-grant');
  });

  it('refuses an expired invitation and a revoked one', async () => {
    const invite = async (email: string) =>
      (await asBrowser(app, admin, { method: 'POST', url: '/api/v1/admin/invitations', payload: { email, role: 'member' } })).json();
    const accept = (token: string) =>
      app.inject({ method: 'POST', url: '/api/v1/auth/invitations/accept', payload: { token, name: 'Late', password: 'a late password here' } });
    admin = remember(await signIn(app, firstAdmin.email, firstAdmin.password));
    const expiring = await invite('late@example.com');
    const revoked = await invite('revoked@example.com');
    secrets.push(expiring.token, revoked.token);
    const revoke = await asBrowser(app, admin, { method: 'DELETE', url: `/api/v1/admin/invitations/${revoked.id}` });
    expect(revoke.json()).toEqual({ revoked: true });
    expect((await accept(revoked.token)).statusCode).toBe(401);
    clock.advance(7 * 24 * 3_600_000);
    expect((await accept(expiring.token)).statusCode).toBe(401);
    admin = remember(await signIn(app, firstAdmin.email, firstAdmin.password));
    const statuses = (await asBrowser(app, admin, { method: 'GET', url: '/api/v1/admin/invitations' })).json().items.map((i: { email: string; status: string }) => [i.email, i.status]);
    expect(statuses).toEqual(expect.arrayContaining([['late@example.com', 'expired'], ['revoked@example.com', 'revoked'], ['mia.member@example.com', 'accepted']]));
  });

  it('deactivating a user ends their sessions and stops their sign-in', async () => {
    const response = await asBrowser(app, admin, { method: 'PATCH', url: `/api/v1/admin/users/${memberSession.user.id}`, payload: { active: false } });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ id: memberSession.user.id, active: false });
    expect((await asBrowser(app, memberSession, { method: 'GET', url: '/api/v1/auth/session' })).statusCode).toBe(401);
    expect((await app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email: member.email, password: resetPassword } })).statusCode).toBe(401);
  });

  it('creates an ingestion key whose secret is shown once', async () => {
    const response = await asBrowser(app, admin, { method: 'POST', url: '/api/v1/admin/keys', payload: { name: 'flow key' } });
    expect(response.statusCode).toBe(201);
    secrets.push(response.json().key);
    expect(await app.ingestionKeys.verify(`Bearer ${response.json().key}`)).toMatchObject({ name: 'flow key' });
  });

  it('leaves no plaintext secret in any column of any table', async () => {
    expect(secrets.length).toBeGreaterThan(20);
    const stored = await everyStoredValue(app);
    expect(stored.length).toBeGreaterThan(20);
    for (const secret of new Set(secrets)) {
      const leaks = stored.filter((value) => value.includes(secret));
      expect(leaks, `a stored value contains the secret ${secret.slice(0, 6)}…`).toEqual([]);
    }
  });

  it('sweeps expired sessions and reset tokens', async () => {
    const count = async (table: 'account_sessions' | 'account_password_resets') =>
      Number((await app.database.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    expect(await count('account_sessions')).toBeGreaterThan(0);
    expect(await count('account_password_resets')).toBeGreaterThan(0);
    clock.advance(8 * 24 * 3_600_000);
    await app.authService.sweepExpired();
    expect(await count('account_sessions')).toBe(0);
    expect(await count('account_password_resets')).toBe(0);
  });
});

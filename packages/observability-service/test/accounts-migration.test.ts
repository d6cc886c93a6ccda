import { afterAll, expect, it } from 'vitest';
import { hashOpaqueToken, hashPassword, ManualClock, newOpaqueToken, type App } from '@playstack/server-kit';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { asBrowser, signIn } from './support/browser-session.js';
import { databaseMigratedUpTo, insertRow } from './support/legacy-database.js';
import { buildTestApp } from './support/test-app.js';

const now = Date.UTC(2026, 11, 3, 12);
const hourMs = 3_600_000;
const accounts = [
  { id: 'u-admin', email: 'ada@example.com', name: 'Ada', role: 'admin', password: 'the admin password', active: 1 },
  { id: 'u-member', email: 'max@example.com', name: 'Max', role: 'member', password: 'the member password', active: 1 },
  { id: 'u-gone', email: 'gone@example.com', name: 'Gone', role: 'member', password: 'the former password', active: 0 },
];

describeEachDatabase('upgrading a database whose users predate the accounts module', (database) => {
  let app: App | undefined;
  afterAll(async () => {
    await app?.close();
  });

  it('keeps every account, session, invitation, reset token, key and the setup claim', async () => {
    // What the release before the accounts module stored: users, a live session, an invitation,
    // a reset token, an ingestion key created by the admin, and setup claimed in settings.
    const legacy = await databaseMigratedUpTo(database(), '2026-12-01-01-service-started-at-index');
    for (const { password, ...user } of accounts) {
      await insertRow(legacy, 'users', { ...user, password_hash: await hashPassword(password), created_at: now - 10 * hourMs, updated_at: now - 10 * hourMs });
    }
    await insertRow(legacy, 'settings', { name: 'setup-completed', value: 'u-admin', updated_at: now - 10 * hourMs });
    const sessionId = newOpaqueToken(32);
    await insertRow(legacy, 'user_sessions', {
      id_hash: hashOpaqueToken(sessionId), user_id: 'u-member', created_at: now - hourMs, last_seen_at: now - 60_000, idle_expires_at: now + hourMs, absolute_expires_at: now + 5 * hourMs,
    });
    const invitationToken = newOpaqueToken();
    await insertRow(legacy, 'user_invitations', {
      id: 'i-1', email: 'new@example.com', role: 'admin', token_hash: hashOpaqueToken(invitationToken), invited_by: 'u-admin', created_at: now - hourMs, expires_at: now + hourMs,
    });
    const resetToken = newOpaqueToken();
    await insertRow(legacy, 'password_reset_tokens', { id: 'r-1', user_id: 'u-member', token_hash: hashOpaqueToken(resetToken), created_at: now - 60_000, expires_at: now + hourMs });
    await insertRow(legacy, 'ingestion_keys', { id: 'k-1', name: 'old key', prefix: 'obs_old', key_hash: hashOpaqueToken('old key secret'), created_by: 'u-admin', created_at: now - hourMs });
    await legacy.close();

    app = await buildTestApp(database(), {}, { clock: new ManualClock(now) });

    // Every active account signs in with its password; the deactivated one still cannot.
    const admin = await signIn(app, 'ada@example.com', 'the admin password');
    expect(admin.user).toEqual({ id: 'u-admin', email: 'ada@example.com', name: 'Ada', role: 'admin' });
    expect((await signIn(app, 'max@example.com', 'the member password')).user.role).toBe('member');
    const refused = await app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email: 'gone@example.com', password: 'the former password' } });
    expect(refused.statusCode).toBe(401);

    // The session signed in before the upgrade is still signed in.
    const resumed = await app.inject({ method: 'GET', url: '/api/v1/auth/session', cookies: { obs_session: sessionId } });
    expect(resumed.statusCode).toBe(200);
    expect(resumed.json().user.id).toBe('u-member');

    // Setup stays closed.
    const setup = await app.inject({ method: 'POST', url: '/api/v1/auth/setup', payload: { email: 'x@example.com', password: 'a long enough password', name: 'X' } });
    expect(setup.statusCode).toBe(409);

    // The pending invitation and the reset token still work, once.
    const accepted = await app.inject({ method: 'POST', url: '/api/v1/auth/invitations/accept', payload: { token: invitationToken, name: 'New', password: 'a long enough password' } });
    expect(accepted.statusCode).toBe(200);
    expect(accepted.json().user).toMatchObject({ email: 'new@example.com', role: 'admin' });
    const reset = await app.inject({ method: 'POST', url: '/api/v1/auth/password-reset/confirm', payload: { token: resetToken, password: 'a brand new password' } });
    expect(reset.statusCode).toBe(200);
    expect((await signIn(app, 'max@example.com', 'a brand new password')).user.id).toBe('u-member');
    const reused = await app.inject({ method: 'POST', url: '/api/v1/auth/password-reset/confirm', payload: { token: resetToken, password: 'another new password' } });
    expect(reused.statusCode).toBe(401);

    // Users, invitations and keys keep what they were; keys made by new accounts name them.
    const users = await asBrowser(app, admin, { method: 'GET', url: '/api/v1/admin/users' });
    expect(users.json().items.map((u: { email: string; active: boolean }) => [u.email, u.active])).toEqual([
      ['ada@example.com', true],
      ['gone@example.com', false],
      ['max@example.com', true],
      ['new@example.com', true],
    ]);
    const invitations = await asBrowser(app, admin, { method: 'GET', url: '/api/v1/admin/invitations' });
    expect(invitations.json().items).toEqual([expect.objectContaining({ id: 'i-1', status: 'accepted' })]);
    const created = await asBrowser(app, admin, { method: 'POST', url: '/api/v1/admin/keys', payload: { name: 'new key' } });
    expect(created.statusCode).toBe(201);
    const keys = await asBrowser(app, admin, { method: 'GET', url: '/api/v1/admin/keys' });
    expect(keys.json().items.map((k: { name: string }) => k.name).sort()).toEqual(['new key', 'old key']);
  });
});

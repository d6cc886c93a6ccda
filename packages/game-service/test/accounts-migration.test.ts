import { afterAll, expect, it } from 'vitest';
import { hashOpaqueToken, hashPassword, ManualClock, newOpaqueToken, type App } from '@playstack/server-kit';
import { databaseMigratedUpTo, describeEachDatabase, insertRow } from '@playstack/server-kit/testing';
import { gameMigrations } from '../src/migrations/index.js';
import { AdminBrowser } from './support/admin-browser-session.js';
import { buildTestApp } from './support/test-app.js';

const now = Date.UTC(2026, 11, 3, 12);
const hourMs = 3_600_000;
const admins = [
  { id: 'a-first', email: 'first@example.com', name: 'First', password: 'the first password', created_at: now - 10 * hourMs },
  { id: 'a-second', email: 'second@example.com', name: 'Second', password: 'the second password', created_at: now - 5 * hourMs },
];

describeEachDatabase('upgrading a database whose administrators predate the accounts module', (database) => {
  let app: App | undefined;
  afterAll(async () => {
    await app?.close();
  });

  it('keeps every administrator, session and invitation, and registration stays closed', async () => {
    // What the release before the accounts module stored: administrators, a live session and an invitation.
    const legacy = await databaseMigratedUpTo(database(), { sqliteFile: 'game.sqlite', migrations: gameMigrations, migrationTablePrefix: 'game' }, '2026-11-25-03-manifest-changes');
    for (const { password, ...admin } of admins) await insertRow(legacy, 'admin_users', { ...admin, password_hash: await hashPassword(password) });
    const sessionId = newOpaqueToken(32);
    await insertRow(legacy, 'admin_sessions', {
      id_hash: hashOpaqueToken(sessionId), user_id: 'a-second', created_at: now - hourMs, last_seen_at: now - 60_000, idle_expires_at: now + hourMs, absolute_expires_at: now + 5 * hourMs,
    });
    const invitationToken = newOpaqueToken();
    await insertRow(legacy, 'admin_invitations', {
      id: 'i-1', email: 'third@example.com', token_hash: hashOpaqueToken(invitationToken), created_by: 'a-first', created_at: now - hourMs, expires_at: now + hourMs, accepted_at: null,
    });
    await legacy.close();

    app = await buildTestApp(database(), {}, { clock: new ManualClock(now) });

    // Every administrator signs in with their password; a wrong one is still refused.
    for (const { email, password, name } of admins) {
      const browser = new AdminBrowser(app);
      expect((await browser.login(email, password)).statusCode).toBe(303);
      const overview = await browser.get('/admin/');
      expect(overview.statusCode).toBe(200);
      expect(overview.body).toContain(`Sign out ${name}`);
    }
    expect((await new AdminBrowser(app).login('first@example.com', 'not the password')).statusCode).toBe(401);

    // The session signed in before the upgrade is still signed in.
    const resumed = await app.inject({ method: 'GET', url: '/admin/games', headers: { accept: 'application/json', cookie: `admin_session=${sessionId}` } });
    expect(resumed.statusCode).toBe(200);

    // Registration without an invitation stays closed; the pending invitation still works, once.
    const uninvited = new AdminBrowser(app);
    expect((await uninvited.register({ email: 'nobody@example.com', name: 'Nobody', password: 'a long enough password' })).statusCode).toBe(403);
    const invited = new AdminBrowser(app);
    expect((await invited.register({ email: 'third@example.com', name: 'Third', password: 'a long enough password', invitation: invitationToken })).statusCode).toBe(303);
    const again = new AdminBrowser(app);
    expect((await again.register({ email: 'fourth@example.com', name: 'Fourth', password: 'a long enough password', invitation: invitationToken })).statusCode).toBe(403);

    const overview = await invited.get('/admin/', 'application/json');
    expect(overview.json().invitations).toEqual([expect.objectContaining({ id: 'i-1', email: 'third@example.com', acceptedAt: now })]);
  });
});

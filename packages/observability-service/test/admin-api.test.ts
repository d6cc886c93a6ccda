import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, type App } from '@playstack/server-kit';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { asBrowser, browserSessionFrom, setUpFirstAdmin, type BrowserSession } from './support/browser-session.js';
import { buildTestApp } from './support/test-app.js';

const legacyKey = 'legacy-service-api-key-0123';

describeEachDatabase('admin API', (database) => {
  const clock = new ManualClock('2026-11-21T10:00:00.000Z');
  let app: App;
  let admin: BrowserSession;
  let second: BrowserSession;

  const invite = async (email: string, role: 'admin' | 'member') => {
    const invitation = await asBrowser(app, admin, { method: 'POST', url: '/api/v1/admin/invitations', payload: { email, role } });
    return browserSessionFrom(
      await app.inject({
        method: 'POST',
        url: '/api/v1/auth/invitations/accept',
        payload: { token: invitation.json().token, name: email.split('@')[0], password: 'a long enough password' },
      }),
    );
  };

  beforeAll(async () => {
    app = await buildTestApp(database(), { SERVICE_API_KEY: legacyKey, RETENTION_DAYS: '21' }, { clock });
    admin = await setUpFirstAdmin(app);
    second = await invite('second@example.com', 'member');
  });
  afterAll(async () => {
    await app.close();
  });

  it('answers 401 to a signed-out request', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/v1/admin/users' });
    expect(response.statusCode).toBe(401);
    expect(response.json().error.code).toBe('unauthorized');
  });

  it('lists users without password hashes', async () => {
    const response = await asBrowser(app, admin, { method: 'GET', url: '/api/v1/admin/users' });
    expect(response.statusCode).toBe(200);
    expect(response.json().items).toEqual([
      { id: admin.user.id, email: admin.user.email, name: admin.user.name, role: 'admin', active: true, createdAt: '2026-11-21T10:00:00.000Z' },
      { id: second.user.id, email: 'second@example.com', name: 'second', role: 'member', active: true, createdAt: '2026-11-21T10:00:00.000Z' },
    ]);
    expect(response.body).not.toContain('argon2');
  });

  it('changes a role; the new role applies to the next request', async () => {
    expect((await asBrowser(app, second, { method: 'GET', url: '/api/v1/admin/users' })).statusCode).toBe(403);
    const promoted = await asBrowser(app, admin, { method: 'PATCH', url: `/api/v1/admin/users/${second.user.id}`, payload: { role: 'admin' } });
    expect(promoted.json()).toMatchObject({ role: 'admin', active: true });
    expect((await asBrowser(app, second, { method: 'GET', url: '/api/v1/admin/users' })).statusCode).toBe(200);
    await asBrowser(app, admin, { method: 'PATCH', url: `/api/v1/admin/users/${second.user.id}`, payload: { role: 'member' } });
    expect((await asBrowser(app, second, { method: 'GET', url: '/api/v1/admin/users' })).statusCode).toBe(403);
  });

  it('refuses to demote or deactivate the last active admin', async () => {
    for (const payload of [{ role: 'member' }, { active: false }]) {
      const response = await asBrowser(app, admin, { method: 'PATCH', url: `/api/v1/admin/users/${admin.user.id}`, payload });
      expect(response.statusCode).toBe(409);
      expect(response.json().error.code).toBe('conflict');
    }
  });

  it('answers 400 to bad admin input and 404 to unknown ids', async () => {
    const cases = [
      [{ method: 'PATCH', url: `/api/v1/admin/users/${second.user.id}`, payload: {} }, 400],
      [{ method: 'PATCH', url: `/api/v1/admin/users/${second.user.id}`, payload: { role: 'owner' } }, 400],
      [{ method: 'PATCH', url: `/api/v1/admin/users/${second.user.id}`, payload: { active: 'no' } }, 400],
      [{ method: 'PATCH', url: '/api/v1/admin/users/nope', payload: { role: 'member' } }, 404],
      [{ method: 'POST', url: '/api/v1/admin/invitations', payload: { email: 'not-an-email', role: 'member' } }, 400],
      [{ method: 'POST', url: '/api/v1/admin/invitations', payload: { email: 'x@example.com', role: 'member', extra: 1 } }, 400],
      [{ method: 'POST', url: '/api/v1/admin/invitations', payload: { email: 'second@example.com', role: 'member' } }, 409],
      [{ method: 'DELETE', url: '/api/v1/admin/invitations/nope' }, 404],
      [{ method: 'POST', url: '/api/v1/admin/keys', payload: { name: '' } }, 400],
      [{ method: 'POST', url: '/api/v1/admin/keys', payload: { name: 'x'.repeat(101) } }, 400],
      [{ method: 'DELETE', url: '/api/v1/admin/keys/nope' }, 404],
      [{ method: 'PUT', url: '/api/v1/admin/retention', payload: { days: 0 } }, 400],
      [{ method: 'PUT', url: '/api/v1/admin/retention', payload: { days: '7' } }, 400],
      [{ method: 'PUT', url: '/api/v1/admin/retention', payload: { days: 1.5 } }, 400],
    ] as const;
    for (const [options, status] of cases) {
      const response = await asBrowser(app, admin, options);
      expect(response.statusCode, `${options.method} ${options.url} ${JSON.stringify('payload' in options ? options.payload : '')}`).toBe(status);
      expect(response.json().error).toMatchObject({ code: expect.any(String), message: expect.any(String), requestId: expect.any(String) });
    }
  });

  it('reads retention (RETENTION_DAYS until set) and sets it', async () => {
    expect((await asBrowser(app, admin, { method: 'GET', url: '/api/v1/admin/retention' })).json()).toEqual({ days: 21 });
    const set = await asBrowser(app, admin, { method: 'PUT', url: '/api/v1/admin/retention', payload: { days: 7 } });
    expect(set.json()).toEqual({ days: 7 });
    expect((await asBrowser(app, admin, { method: 'GET', url: '/api/v1/admin/retention' })).json()).toEqual({ days: 7 });
  });

  describe('ingestion keys', () => {
    const createKey = async (name: string) => {
      const response = await asBrowser(app, admin, { method: 'POST', url: '/api/v1/admin/keys', payload: { name } });
      expect(response.statusCode).toBe(201);
      return response.json() as { id: string; name: string; prefix: string; createdAt: string; key: string };
    };
    const listKeys = async () => (await asBrowser(app, admin, { method: 'GET', url: '/api/v1/admin/keys' })).json().items as Array<Record<string, unknown>>;

    it('creates a key that authenticates, shown once and listed without its secret', async () => {
      const created = await createKey('production');
      expect(created).toEqual({ id: expect.any(String), name: 'production', prefix: expect.stringMatching(/^obsk_[0-9a-f]{8}$/), createdAt: '2026-11-21T10:00:00.000Z', key: expect.any(String) });
      expect(await app.ingestionKeys.verify(`Bearer ${created.key}`)).toEqual({ keyId: created.id, name: 'production', legacy: false });
      const listed = await asBrowser(app, admin, { method: 'GET', url: '/api/v1/admin/keys' });
      expect(listed.body).not.toContain(created.key);
      expect(listed.json().items).toContainEqual({ id: created.id, name: 'production', prefix: created.prefix, createdAt: created.createdAt, lastUsedAt: expect.any(String), revokedAt: null });
    });

    it('keeps two active keys working side by side, and a revoked one stops at once', async () => {
      const old = await createKey('rotate-old');
      const next = await createKey('rotate-new');
      expect(await app.ingestionKeys.verify(`Bearer ${old.key}`)).toMatchObject({ keyId: old.id });
      expect(await app.ingestionKeys.verify(`Bearer ${next.key}`)).toMatchObject({ keyId: next.id });
      const revoke = await asBrowser(app, admin, { method: 'DELETE', url: `/api/v1/admin/keys/${old.id}` });
      expect(revoke.json()).toEqual({ revoked: true });
      expect(await app.ingestionKeys.verify(`Bearer ${old.key}`)).toBeUndefined();
      expect(await app.ingestionKeys.verify(`Bearer ${next.key}`)).toMatchObject({ keyId: next.id });
      expect((await asBrowser(app, admin, { method: 'DELETE', url: `/api/v1/admin/keys/${old.id}` })).statusCode).toBe(404);
      expect((await listKeys()).find((k) => k.id === old.id)).toMatchObject({ revokedAt: '2026-11-21T10:00:00.000Z' });
    });

    it('shows when a key was last used', async () => {
      const created = await createKey('last-used');
      expect((await listKeys()).find((k) => k.id === created.id)?.lastUsedAt).toBeNull();
      clock.set('2026-11-21T11:34:56.789Z');
      await app.ingestionKeys.verify(`Bearer ${created.key}`);
      expect((await listKeys()).find((k) => k.id === created.id)?.lastUsedAt).toBe('2026-11-21T11:34:56.789Z');
    });

    it('accepts the legacy SERVICE_API_KEY while it is set', async () => {
      expect(await app.ingestionKeys.verify(`Bearer ${legacyKey}`)).toMatchObject({ legacy: true });
    });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, type App } from '@playstack/server-kit';
import { createTestDatabase, HttpBrowser, listeningOnSqlite, redisVariants, requestsFromAddresses, testAddresses, type TestDatabase } from '@playstack/server-kit/testing';
import { AdminBrowser } from './support/admin-browser-session.js';
import { buildTestApp } from './support/test-app.js';

const operator = { email: 'ops@example.com', name: 'Ops', password: 'correct horse battery' };

/** Signs in at /admin/login over HTTP the way the form does (its CSRF token, urlencoded), answering JSON. */
async function formLogin(browser: HttpBrowser, email: string, password: string): Promise<Response> {
  if (!browser.cookie('admin_form_csrf')) await (await browser.fetch('/admin/login', { headers: { accept: 'application/json' } })).arrayBuffer();
  const response = await browser.fetch('/admin/login', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({ email, password, _csrf: browser.cookie('admin_form_csrf')! }).toString(),
  });
  return response;
}

// Counters live in process memory or Redis, never in the SQL database: SQLite, both counter stores.
for (const variant of redisVariants()) {
  describe(`admin sign-in throttling (${variant.name})`, () => {
    const clock = new ManualClock('2026-11-21T10:00:00.000Z');
    let database: TestDatabase;
    let app: App;
    let owner: AdminBrowser;
    beforeAll(async () => {
      database = await createTestDatabase('sqlite');
      app = await buildTestApp(database, variant.env(), { clock });
      owner = new AdminBrowser(app);
      expect((await owner.register(operator)).statusCode).toBe(303);
    });
    afterAll(async () => {
      await app.close();
      await database.dispose();
    });

    // Every injected request comes from the same address: the stranger and the operator share it.
    const strangerLogin = (password: string) => new AdminBrowser(app).login(operator.email, password);

    it("slows a stranger after 5 failures at the operator's address (429 page with Retry-After), while the operator's browser signs in at once", async () => {
      for (let i = 0; i < 5; i += 1) expect((await strangerLogin(`guess ${i}`)).statusCode).toBe(401);
      const slowed = await strangerLogin(operator.password);
      expect(slowed.statusCode).toBe(429);
      expect(slowed.headers['retry-after']).toBe('1');
      expect(slowed.body).toContain('Too many failed attempts');

      expect(owner.cookieHeader).toMatch(/admin_device=/);
      await owner.get('/admin/');
      expect((await owner.post('/admin/logout', {})).statusCode).toBe(303);
      const back = await owner.login(operator.email, operator.password);
      expect(back.statusCode).toBe(303);
      expect(back.headers.location).toBe('/admin/');
      // Renewed on every sign-in: HttpOnly, SameSite=Strict, sent to the sign-in form only.
      expect(back.cookies.find((c) => c.name === 'admin_device')).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/admin/login' });
    });

    it('ends the wait: a stranger who waited may try again', async () => {
      clock.advance(60_000);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect((await strangerLogin(operator.password)).statusCode).toBe(303);
    });
  });

  describe(`admin sign-in against 10,000 failures from 100 addresses, over HTTP (${variant.name})`, () => {
    const served = listeningOnSqlite((database) => buildTestApp(database, { ...variant.env(), TRUST_PROXY: 'true' }));

    // 10,000 requests over HTTP, the failures among them each an argon2id verification: about 3
    // minutes on a 2-core machine at load 16, so the bound leaves room.
    it('lets the operator in at once from the browser they signed in with before', { timeout: 600_000 }, async () => {
      const baseUrl = served();
      const owners = new HttpBrowser(baseUrl, { 'x-forwarded-for': '198.51.100.20' });
      await (await owners.fetch('/admin/register', { headers: { accept: 'application/json' } })).arrayBuffer();
      const registered = await owners.fetch('/admin/register', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({ ...operator, _csrf: owners.cookie('admin_form_csrf')! }).toString(),
      });
      expect(registered.status).toBe(201);
      expect(owners.cookie('admin_device')).toBeDefined();
      const csrf = /name="_csrf" value="([^"]+)"/.exec(await (await owners.fetch('/admin/')).text())?.[1];
      await owners.fetch('/admin/logout', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, body: `_csrf=${csrf}` });
      expect(owners.cookie('admin_session')).toBeUndefined();

      const statuses = await requestsFromAddresses({
        baseUrl,
        total: 10_000,
        addresses: testAddresses(100),
        concurrency: 16,
        request: (browser, i) => formLogin(browser, operator.email, `guess number ${i}`),
      });
      expect([...statuses.keys()].sort()).toEqual([401, 429]);
      expect(statuses.get(429)).toBeGreaterThan(9_000);

      const started = performance.now();
      expect((await formLogin(owners, operator.email, operator.password)).status).toBe(200);
      expect(performance.now() - started).toBeLessThan(2_000);

      const newLaptop = await formLogin(new HttpBrowser(baseUrl, { 'x-forwarded-for': '198.51.100.20' }), operator.email, operator.password);
      expect(newLaptop.status).toBe(429);
      expect(Number(newLaptop.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Number(newLaptop.headers.get('retry-after'))).toBeLessThanOrEqual(15 * 60);
    });
  });
}

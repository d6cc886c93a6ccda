import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, type App } from '@playstack/server-kit';
import { createTestDatabase, HttpBrowser, listeningOnSqlite, redisVariants, requestsFromAddresses, testAddresses, type TestDatabase } from '@playstack/server-kit/testing';
import { asBrowser, firstAdmin, invitedUser, setUpFirstAdmin, type BrowserSession } from './support/browser-session.js';
import { captureLoggedMail } from './support/captured-mail.js';
import { buildTestApp } from './support/test-app.js';

const attacker = '203.0.113.7';
const owner = '198.51.100.20';

// Throttle counters live in process memory or Redis, never in the SQL database, so these suites
// vary the counter store and use SQLite; the sign-in path itself runs on both databases elsewhere.
for (const variant of redisVariants()) {
  describe(`login throttling (${variant.name})`, () => {
    const clock = new ManualClock('2026-11-21T10:00:00.000Z');
    let database: TestDatabase;
    let app: App;
    let adminSession: BrowserSession;
    /** The owner's browser's device cookie, once they signed in. */
    let trusted: string;
    beforeAll(async () => {
      database = await createTestDatabase('sqlite');
      app = await buildTestApp(database, variant.env(), { clock });
      adminSession = await setUpFirstAdmin(app);
    });
    afterAll(async () => {
      await app.close();
      await database.dispose();
    });

    const login = (password: string, remoteAddress: string, email = firstAdmin.email, cookies: Record<string, string> = {}) =>
      app.inject({ method: 'POST', url: '/api/v1/auth/login', remoteAddress, payload: { email, password }, cookies });
    const deviceCookieOf = (response: Awaited<ReturnType<typeof login>>) => response.cookies.find((c) => c.name === 'obs_device');

    it('slows an account from an address after 5 failures, even with the right password, with a short Retry-After', async () => {
      for (let i = 0; i < 5; i += 1) expect((await login(`wrong password ${i}`, attacker)).statusCode).toBe(401);
      const slowed = await login(firstAdmin.password, attacker);
      expect(slowed.statusCode).toBe(429);
      expect(slowed.json().error.code).toBe('rate-limited');
      expect(slowed.headers['retry-after']).toBe('1');
    });

    it('does not slow the owner from their own address, and trusts their browser with a signed device cookie', async () => {
      const response = await login(firstAdmin.password, owner);
      expect(response.statusCode).toBe(200);
      const device = deviceCookieOf(response)!;
      trusted = device.value;
      expect(device).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/api/v1/auth/' });
      expect(device.value).toMatch(/^[\w-]+\.[0-9a-z]+\.[\w-]{43}$/);
    });

    it('counts sign-ins by outcome in the metrics', async () => {
      const metrics = await app.metrics.getSingleMetricAsString('observability_auth_sign_ins_total');
      expect(metrics).toMatch(/observability_auth_sign_ins_total\{outcome="failure"\} 5$/m);
      expect(metrics).toMatch(/observability_auth_sign_ins_total\{outcome="throttled"\} 1$/m);
      expect(metrics).toMatch(/observability_auth_sign_ins_total\{outcome="success"\} 1$/m);
    });

    it('throttles unknown emails the same way as known ones', async () => {
      for (let i = 0; i < 5; i += 1) expect((await login('some password', attacker, 'ghost@example.com')).statusCode).toBe(401);
      expect((await login('some password', attacker, 'ghost@example.com')).statusCode).toBe(429);
    });

    it('lets the owner in at once from a trusted browser at the address the failures came from', async () => {
      const shared = '192.0.2.50';
      for (let i = 0; i < 5; i += 1) expect((await login(`guess ${i}`, shared)).statusCode).toBe(401);
      expect((await login(firstAdmin.password, shared)).statusCode).toBe(429);
      expect((await login(firstAdmin.password, shared, firstAdmin.email, { obs_device: trusted })).statusCode).toBe(200);
    });

    /**
     * Guesses from the attacker's address until one is counted as a failure (401), letting any
     * earlier wait lapse (real time for Redis, the manual clock in process), so the test never
     * depends on how long an earlier wait lasts. The counted failure leaves a wait of 1 s or more.
     */
    const failOnceCounted = async (email: string, cookies: Record<string, string>) => {
      for (let attempt = 0; attempt < 100; attempt += 1) {
        const status = (await login('guess', attacker, email, cookies)).statusCode;
        if (status === 401) return;
        expect(status).toBe(429);
        clock.advance(1_000);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error('no guess was counted as a failure');
    };

    it('gives the trusted browser its own budget, and a forged or foreign device cookie none', async () => {
      expect((await login(firstAdmin.password, owner, firstAdmin.email, { obs_device: trusted })).statusCode).toBe(200);
      // One character of the signature changed, at its start: the last of 43 base64url characters
      // carries 2 padding bits, so changing it (A to B, say) can leave the signature's bytes as they
      // were, and the "forged" cookie valid (1 run in 16).
      const signatureAt = trusted.lastIndexOf('.') + 1;
      const forged = trusted.slice(0, signatureAt) + (trusted[signatureAt] === 'A' ? 'B' : 'A') + trusted.slice(signatureAt + 1);
      // A failure with a forged cookie counts as a stranger's: the right password must then wait.
      await failOnceCounted(firstAdmin.email, { obs_device: forged });
      expect((await login(firstAdmin.password, attacker, firstAdmin.email, { obs_device: forged })).statusCode).toBe(429);
      // A cookie for another account is no trust for this one.
      await failOnceCounted('ghost@example.com', { obs_device: trusted });
      expect((await login('some password', attacker, 'ghost@example.com', { obs_device: trusted })).statusCode).toBe(429);
      // The owner's own browser is still let in at once.
      expect((await login(firstAdmin.password, attacker, firstAdmin.email, { obs_device: trusted })).statusCode).toBe(200);
    });

    it('counts failed password changes apart from sign-ins', async () => {
      // A user of their own: the admin's account is slowed by the tests above.
      const member = await invitedUser(app, adminSession, 'member@example.com');
      const change = (currentPassword: string) =>
        asBrowser(app, member, { method: 'POST', url: '/api/v1/auth/password', remoteAddress: '192.0.2.60', payload: { currentPassword, newPassword: 'another long password' } });
      for (let i = 0; i < 5; i += 1) expect((await change(`not it ${i}`)).statusCode).toBe(403);
      expect((await change('a long enough password')).statusCode).toBe(429);
      // Slowed password changes, yet sign-in from the same address, in a browser never trusted, is not slowed.
      expect((await login('a long enough password', '192.0.2.60', 'member@example.com')).statusCode).toBe(200);
    });
  });

  describe(`login throttling against 10,000 failures from 100 addresses, over HTTP (${variant.name})`, () => {
    const served = listeningOnSqlite((database) => buildTestApp(database, { ...variant.env(), TRUST_PROXY: 'true' }));

    // 10,000 requests over HTTP, the failures among them each an argon2id verification: about 3
    // minutes on a 2-core machine at load 16, so the bound leaves room.
    it('lets the real user in at once from the browser they signed in with before', { timeout: 600_000 }, async () => {
      const baseUrl = served();
      const owners = new HttpBrowser(baseUrl, { 'x-forwarded-for': owner });
      const setup = await owners.postJson('/api/v1/auth/setup', firstAdmin);
      expect(setup.status).toBe(200);
      expect(owners.cookie('obs_device')).toBeDefined();
      const { csrfToken } = (await setup.json()) as { csrfToken: string };
      expect((await owners.postJson('/api/v1/auth/logout', {}, { 'x-csrf-token': csrfToken })).status).toBe(200);
      expect(owners.cookie('obs_session')).toBeUndefined();

      const statuses = await requestsFromAddresses({
        baseUrl,
        total: 10_000,
        addresses: testAddresses(100),
        concurrency: 16,
        request: (browser, i) => browser.postJson('/api/v1/auth/login', { email: firstAdmin.email, password: `guess number ${i}` }),
      });
      expect([...statuses.keys()].sort()).toEqual([401, 429]);
      expect(statuses.get(429)).toBeGreaterThan(9_000);

      const started = performance.now();
      const back = await owners.postJson('/api/v1/auth/login', { email: firstAdmin.email, password: firstAdmin.password });
      expect(back.status).toBe(200);
      expect(performance.now() - started).toBeLessThan(2_000);

      // Another browser of the owner's, never signed in before, waits like any stranger, but not for good.
      const newLaptop = await new HttpBrowser(baseUrl, { 'x-forwarded-for': owner }).postJson('/api/v1/auth/login', { email: firstAdmin.email, password: firstAdmin.password });
      expect(newLaptop.status).toBe(429);
      expect(Number(newLaptop.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Number(newLaptop.headers.get('retry-after'))).toBeLessThanOrEqual(15 * 60);
    });
  });
}

describe('login throttling window', () => {
  const clock = new ManualClock('2026-11-21T10:00:00.000Z');
  let database: TestDatabase;
  let app: App;
  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    app = await buildTestApp(database, {}, { clock });
    await setUpFirstAdmin(app);
  });
  afterAll(async () => {
    await app.close();
    await database.dispose();
  });

  it('slows a long run of failures to one attempt per 15 minutes at most, never locking the account', async () => {
    const login = (password: string) =>
      app.inject({ method: 'POST', url: '/api/v1/auth/login', remoteAddress: attacker, payload: { email: firstAdmin.email, password } });
    const waits: number[] = [];
    while (!waits.includes(15 * 60)) {
      const response = await login('wrong password!');
      if (response.statusCode === 429) {
        waits.push(Number(response.headers['retry-after']));
        clock.advance(Number(response.headers['retry-after']) * 1000);
      } else expect(response.statusCode).toBe(401);
    }
    expect(waits.slice(0, 5)).toEqual([1, 2, 4, 8, 16]);
    expect(waits.slice(5)).toEqual([32, 64, 128, 256, 512, 900]);
    // The last wait has passed: the right password works.
    expect((await login(firstAdmin.password)).statusCode).toBe(200);
  });

  it('mails at most 3 reset tokens per email an hour, answering the same every time', async () => {
    const mail = captureLoggedMail(app);
    const answers = new Set<string>();
    for (let i = 0; i < 5; i += 1) {
      const response = await app.inject({ method: 'POST', url: '/api/v1/auth/password-reset/request', payload: { email: firstAdmin.email } });
      answers.add(`${response.statusCode} ${response.body}`);
    }
    expect([...answers]).toEqual(['202 {"requested":true}']);
    await expect.poll(() => mail.messages().length).toBe(3);
    clock.advance(60 * 60_000);
    await app.inject({ method: 'POST', url: '/api/v1/auth/password-reset/request', payload: { email: firstAdmin.email } });
    await expect.poll(() => mail.messages().length).toBe(4);
  });

  it('mails at most 20 reset tokens an hour to requests from one address, whatever the emails', async () => {
    const spammer = '192.0.2.99';
    const mail = captureLoggedMail(app);
    const before = mail.messages().length;
    // Only the admin's email has an account; spread the other requests over unknown emails.
    for (let i = 0; i < 20; i += 1) {
      const response = await app.inject({ method: 'POST', url: '/api/v1/auth/password-reset/request', remoteAddress: spammer, payload: { email: `nobody-${i}@example.com` } });
      expect(response.statusCode).toBe(202);
    }
    const last = await app.inject({ method: 'POST', url: '/api/v1/auth/password-reset/request', remoteAddress: spammer, payload: { email: firstAdmin.email } });
    expect(last.statusCode).toBe(202);
    const fromElsewhere = await app.inject({ method: 'POST', url: '/api/v1/auth/password-reset/request', remoteAddress: owner, payload: { email: firstAdmin.email } });
    expect(fromElsewhere.statusCode).toBe(202);
    await expect.poll(() => mail.messages().length).toBe(before + 1);
    expect(mail.messages().at(-1)?.to).toBe(firstAdmin.email);
  });
});

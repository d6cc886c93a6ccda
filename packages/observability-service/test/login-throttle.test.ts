import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, type App } from '@playstack/server-kit';
import { createTestDatabase, redisVariants, type TestDatabase } from '@playstack/server-kit/testing';
import { firstAdmin, setUpFirstAdmin } from './support/browser-session.js';
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
    beforeAll(async () => {
      database = await createTestDatabase('sqlite');
      app = await buildTestApp(database, variant.env(), { clock });
      await setUpFirstAdmin(app);
    });
    afterAll(async () => {
      await app.close();
      await database.dispose();
    });

    const login = (password: string, remoteAddress: string, email = firstAdmin.email) =>
      app.inject({ method: 'POST', url: '/api/v1/auth/login', remoteAddress, payload: { email, password } });

    it('blocks an account from an address after 5 failures, even with the right password, with Retry-After', async () => {
      for (let i = 0; i < 5; i += 1) expect((await login(`wrong password ${i}`, attacker)).statusCode).toBe(401);
      const blocked = await login(firstAdmin.password, attacker);
      expect(blocked.statusCode).toBe(429);
      expect(blocked.json().error.code).toBe('rate-limited');
      expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(blocked.headers['retry-after'])).toBeLessThanOrEqual(15 * 60);
    });

    it('does not lock the owner out from their own address', async () => {
      expect((await login(firstAdmin.password, owner)).statusCode).toBe(200);
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

  it('ends the block when its window ends', async () => {
    const login = (password: string) =>
      app.inject({ method: 'POST', url: '/api/v1/auth/login', remoteAddress: attacker, payload: { email: firstAdmin.email, password } });
    for (let i = 0; i < 5; i += 1) await login('wrong password!');
    expect((await login(firstAdmin.password)).statusCode).toBe(429);
    clock.advance(15 * 60_000);
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

import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { ManualClock, type App } from '@playstack/server-kit';
import { describeEachDatabase, TestRedisServer } from '@playstack/server-kit/testing';
import { createIngestionKey } from '../src/keys/ingestion-keys.js';
import { asBrowser, firstAdmin, setUpFirstAdmin } from './support/browser-session.js';
import { envelope, minimalOccurrence } from './support/envelopes.js';
import { buildTestApp } from './support/test-app.js';

/** The longest any call may take while Redis is down (the bound). */
const callBoundMs = 2_000;
const ratePerSecond = 5;

/** Calls that note their status and how long each took. */
function timedCalls() {
  const calls: Array<{ what: string; status: number; ms: number }> = [];
  const call = async (what: string, request: () => Promise<{ statusCode: number }>) => {
    const started = performance.now();
    const response = await request();
    calls.push({ what, status: response.statusCode, ms: performance.now() - started });
    return response.statusCode;
  };
  return { calls, call };
}

describeEachDatabase('observability service through a Redis outage and an empty Redis restart', (database) => {
  let redis: TestRedisServer;
  beforeAll(async () => {
    redis = await TestRedisServer.start();
  });
  afterAll(async () => {
    await redis?.dispose();
  });

  it('goes on ingesting (rate-limited per instance) and signing in without 5xx, each call within 2 s, says it is degraded, and recovers', async () => {
    // A fixed clock keeps every envelope in one rate window.
    const clock = new ManualClock('2026-11-21T10:00:00.000Z');
    const app = await buildTestApp(database(), { REDIS_URL: redis.url, REDIS_KEY_PREFIX: `chaos-${randomBytes(4).toString('hex')}:`, INGEST_RATE_LIMIT_PER_SECOND: String(ratePerSecond) }, { clock });
    try {
      await setUpFirstAdmin(app);
      const key = (await createIngestionKey(app.database.db, { name: 'chaos', createdBy: null, now: clock.now() })).key;
      const { calls, call } = timedCalls();
      const ingest = () =>
        call('ingest', () =>
          app.inject({
            method: 'POST',
            url: '/api/v1/ingest',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            payload: JSON.stringify(envelope([minimalOccurrence(new Date(clock.now()).toISOString())])),
          }),
        );
      const login = (password: string) => call('login', () => app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email: firstAdmin.email, password } }));
      const warn = vi.spyOn(app.log, 'warn');
      const info = vi.spyOn(app.log, 'info');

      await redis.stop();
      // Envelopes beyond the rate are refused by this instance's own count while Redis is down.
      const statuses: number[] = [];
      for (let i = 0; i < ratePerSecond * 2; i++) statuses.push(await ingest());
      expect(statuses).toEqual([...Array(ratePerSecond).fill(202), ...Array(ratePerSecond).fill(429)]);
      expect(await login('not the password')).toBe(401);
      expect(await login(firstAdmin.password)).toBe(200);
      const signedIn = await app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email: firstAdmin.email, password: firstAdmin.password } });
      const session = { cookie: signedIn.cookies.find((c) => c.name === 'obs_session')!.value, csrfToken: signedIn.json().csrfToken };
      expect(await call('services', () => asBrowser(app, { ...session, user: signedIn.json().user }, { method: 'GET', url: '/api/v1/services' }))).toBe(200);
      const ready = await app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(200);
      expect(ready.json().degraded).toEqual([{ check: 'redis', reason: expect.stringMatching(/^Redis unreachable for \d+ s/) }]);
      expect(await app.metrics.getSingleMetricAsString('observability_redis_degraded')).toMatch(/^observability_redis_degraded 1$/m);
      expect(warn.mock.calls.some(([, message]) => /Redis unreachable/.test(String(message)))).toBe(true);

      expect(calls.filter((c) => c.status >= 500)).toEqual([]);
      expect(calls.filter((c) => c.ms > callBoundMs)).toEqual([]);
      const stored = await app.database.db.selectFrom('occurrences').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      expect(Number(stored.n)).toBe(ratePerSecond);

      await redis.start();
      await vi.waitFor(async () => expect((await app.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({ status: 'ready', failing: [], degraded: [] }), { timeout: 5_000, interval: 50 });
      expect(await app.metrics.getSingleMetricAsString('observability_redis_degraded')).toMatch(/^observability_redis_degraded 0$/m);
      expect(info.mock.calls.some(([, message]) => /Redis answers again/.test(String(message)))).toBe(true);
      // Counting is shared again: the (empty) Redis counts this window afresh.
      clock.advance(1_000);
      expect(await ingest()).toBe(202);
    } finally {
      await app.close();
    }
  }, 30_000);

  it('answers ingestion and sign-in within 2 s from its fallbacks while Redis hangs without closing connections', async () => {
    const clock = new ManualClock('2026-11-21T10:00:00.000Z');
    const app = await buildTestApp(database(), { REDIS_URL: redis.url, REDIS_KEY_PREFIX: `hang-${randomBytes(4).toString('hex')}:`, INGEST_RATE_LIMIT_PER_SECOND: String(ratePerSecond) }, { clock });
    try {
      // The suite's database has its first admin once the test above has run.
      expect([200, 409]).toContain((await app.inject({ method: 'POST', url: '/api/v1/auth/setup', payload: firstAdmin })).statusCode);
      const key = (await createIngestionKey(app.database.db, { name: 'hang', createdBy: null, now: clock.now() })).key;
      const { calls, call } = timedCalls();
      redis.pause();
      for (let i = 0; i < 3; i++) {
        await call('ingest', () =>
          app.inject({
            method: 'POST',
            url: '/api/v1/ingest',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            payload: JSON.stringify(envelope([minimalOccurrence(new Date(clock.now()).toISOString())])),
          }),
        );
        await call('login', () => app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email: firstAdmin.email, password: firstAdmin.password } }));
      }
      redis.resume();
      expect(calls.map((c) => `${c.what} ${c.status}`)).toEqual(Array(3).fill(['ingest 202', 'login 200']).flat());
      expect(calls.filter((c) => c.ms > callBoundMs).map((c) => `${c.what} ${Math.round(c.ms)} ms`)).toEqual([]);
      await vi.waitFor(async () => expect((await app.inject({ method: 'GET', url: '/readyz' })).json().degraded).toEqual([]), { timeout: 5_000, interval: 50 });
    } finally {
      redis.resume();
      await app.close();
    }
  });
});

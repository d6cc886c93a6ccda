import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  InMemoryAttemptCounter,
  KyselySessionStore,
  LoginThrottle,
  ManualClock,
  RedisAttemptCounter,
  SessionManager,
  connectRedis,
  csrfTokenFor,
  csrfTokenMatches,
  hashOpaqueToken,
  openDatabase,
  type AttemptCounter,
  type Database,
  type Redis,
} from '../src/index.js';
import { describeEachDatabase, testRedisEnv } from '../src/testing/index.js';

describeEachDatabase('session manager over a Kysely table', (testDatabase) => {
  const clock = new ManualClock('2026-11-21T10:00:00.000Z');
  let database: Database;
  let sessions: SessionManager;
  const lastSeenOf = async (sessionId: string) =>
    (await database.db.selectFrom('admin_sessions').select('last_seen_at').where('id_hash', '=', hashOpaqueToken(sessionId)).executeTakeFirst())?.last_seen_at;

  beforeAll(async () => {
    const env = testDatabase().env;
    database = await openDatabase({ url: env.DATABASE_URL, schema: env.DATABASE_SCHEMA ?? 'public', poolSize: 2, dataDir: env.DATA_DIR!, fileName: 'kit.sqlite', sqliteSynchronous: 'normal' });
    await database.db.schema
      .createTable('admin_sessions')
      .addColumn('id_hash', 'text', (col) => col.primaryKey())
      .addColumn('user_id', 'text', (col) => col.notNull())
      .addColumn('created_at', 'bigint', (col) => col.notNull())
      .addColumn('last_seen_at', 'bigint', (col) => col.notNull())
      .addColumn('idle_expires_at', 'bigint', (col) => col.notNull())
      .addColumn('absolute_expires_at', 'bigint', (col) => col.notNull())
      .execute();
    sessions = new SessionManager(new KyselySessionStore(database.db, 'admin_sessions'), clock, {
      idleTimeoutMs: 30 * 60_000,
      absoluteLifetimeMs: 8 * 3_600_000,
      touchIntervalMs: 60_000,
    });
  });
  afterAll(async () => {
    await database.close();
  });

  it('starts sessions with 256-bit random ids, stores only their hash, and binds a CSRF token', async () => {
    const started = await sessions.start('user-1');
    expect(Buffer.from(started.sessionId, 'base64url')).toHaveLength(32);
    expect(started.csrfToken).toBe(csrfTokenFor(started.sessionId));
    const stored = await database.db.selectFrom('admin_sessions').selectAll().execute();
    expect(JSON.stringify(stored)).not.toContain(started.sessionId);
    expect(JSON.stringify(stored)).not.toContain(started.csrfToken);
    expect(await sessions.resume(started.sessionId)).toMatchObject({ userId: 'user-1', csrfToken: started.csrfToken });
    expect(csrfTokenMatches(started.csrfToken, started.csrfToken)).toBe(true);
    expect(csrfTokenMatches(started.csrfToken, csrfTokenFor('another session'))).toBe(false);
    expect(csrfTokenMatches(started.csrfToken, undefined)).toBe(false);
  });

  it('moves the idle deadline at most once per touch interval, not with a write per request', async () => {
    const { sessionId } = await sessions.start('user-2');
    const startedAt = clock.now();
    clock.advance(30_000);
    await sessions.resume(sessionId);
    expect(await lastSeenOf(sessionId)).toBe(startedAt);
    clock.advance(31_000);
    await sessions.resume(sessionId);
    expect(await lastSeenOf(sessionId)).toBe(clock.now());
  });

  it('refuses unknown, oversized and ended sessions, and ends all of a user but one', async () => {
    expect(await sessions.resume('')).toBeUndefined();
    expect(await sessions.resume('x'.repeat(500))).toBeUndefined();
    expect(await sessions.resume('unknown-session-id')).toBeUndefined();
    const a = await sessions.start('user-3');
    const b = await sessions.start('user-3');
    const c = await sessions.start('user-3');
    await sessions.end(a.sessionId);
    expect(await sessions.resume(a.sessionId)).toBeUndefined();
    expect(await sessions.endAllForUser('user-3', { keepIdHash: hashOpaqueToken(c.sessionId) })).toBe(1);
    expect(await sessions.resume(b.sessionId)).toBeUndefined();
    expect(await sessions.resume(c.sessionId)).toBeDefined();
  });

  it('sweeps sessions past their deadlines', async () => {
    await sessions.start('user-4');
    clock.advance(9 * 3_600_000);
    expect(await sessions.deleteExpired()).toBeGreaterThan(0);
    expect(await database.db.selectFrom('admin_sessions').selectAll().execute()).toEqual([]);
  });
});

function throttleSuite(name: string, makeCounter: () => Promise<{ counter: AttemptCounter; close(): Promise<void> }>) {
  describe(`login throttle (${name})`, () => {
    let throttle: LoginThrottle;
    let close: () => Promise<void>;
    const policy = { windowMs: 60_000, maxFailuresPerAccountAndAddress: 3, maxFailuresPerAddress: 5, maxFailuresPerAccount: 6 };
    beforeAll(async () => {
      const made = await makeCounter();
      throttle = new LoginThrottle(made.counter, policy);
      close = made.close;
    });
    afterAll(async () => {
      await close();
    });

    const fail = async (account: string, address: string, times: number) => {
      for (let i = 0; i < times; i += 1) await throttle.recordFailure(account, address);
    };

    it('blocks an account from one address after its allowance, other addresses still pass', async () => {
      await fail('a@example.com', '10.0.0.1', 3);
      await expect(throttle.assertAllowed('a@example.com', '10.0.0.1')).rejects.toMatchObject({ code: 'rate-limited', statusCode: 429 });
      await expect(throttle.assertAllowed('A@Example.com', '10.0.0.1')).rejects.toMatchObject({ code: 'rate-limited' });
      await expect(throttle.assertAllowed('a@example.com', '10.0.0.2')).resolves.toBeUndefined();
    });

    it('blocks an address spraying many accounts', async () => {
      for (let i = 0; i < 5; i += 1) await fail(`spray-${i}@example.com`, '10.0.1.1', 1);
      await expect(throttle.assertAllowed('fresh@example.com', '10.0.1.1')).rejects.toMatchObject({ code: 'rate-limited' });
    });

    it('blocks an account guessed from many addresses', async () => {
      for (let i = 0; i < 6; i += 1) await fail('target@example.com', `10.0.2.${i}`, 1);
      await expect(throttle.assertAllowed('target@example.com', '10.0.3.1')).rejects.toMatchObject({ code: 'rate-limited' });
    });

    it('clears the account-and-address allowance after a success', async () => {
      await fail('b@example.com', '10.0.4.1', 2);
      await throttle.recordSuccess('b@example.com', '10.0.4.1');
      await fail('b@example.com', '10.0.4.1', 2);
      await expect(throttle.assertAllowed('b@example.com', '10.0.4.1')).resolves.toBeUndefined();
    });

    it('says when to retry', async () => {
      await fail('c@example.com', '10.0.5.1', 3);
      const error = await throttle.assertAllowed('c@example.com', '10.0.5.1').catch((e: unknown) => e);
      expect(Number((error as { headers: Record<string, string> }).headers['retry-after'])).toBeGreaterThan(0);
      expect(Number((error as { headers: Record<string, string> }).headers['retry-after'])).toBeLessThanOrEqual(60);
    });
  });
}

throttleSuite('in-process', async () => ({ counter: new InMemoryAttemptCounter(new ManualClock('2026-11-21T10:00:00.000Z')), close: async () => {} }));

const redisEnv = testRedisEnv();
if (redisEnv) {
  throttleSuite('Redis', async () => {
    const redis: Redis = await connectRedis(redisEnv.REDIS_URL!, { keyPrefix: redisEnv.REDIS_KEY_PREFIX!, commandTimeoutMs: 2_000 });
    return { counter: new RedisAttemptCounter(redis, 'throttle-test'), close: async () => void (await redis.quit()) };
  });

  describe('Redis attempt counter', () => {
    it('lets a window expire through its Redis TTL, counting within it', async () => {
      const redis = await connectRedis(redisEnv.REDIS_URL!, { keyPrefix: redisEnv.REDIS_KEY_PREFIX!, commandTimeoutMs: 2_000 });
      try {
        const counter = new RedisAttemptCounter(redis, 'expiry-test');
        expect(await counter.hit('k', 300)).toMatchObject({ count: 1 });
        const second = await counter.hit('k', 300);
        expect(second.count).toBe(2);
        expect(second.remainingMs).toBeGreaterThan(0);
        expect(second.remainingMs).toBeLessThanOrEqual(300);
        await new Promise((resolve) => setTimeout(resolve, 400));
        expect(await counter.peek('k')).toEqual({ count: 0, remainingMs: 0 });
      } finally {
        await redis.quit();
      }
    });
  });
}

describe('in-process attempt counter', () => {
  it('forgets a window once it has passed', async () => {
    const clock = new ManualClock('2026-11-21T10:00:00.000Z');
    const counter = new InMemoryAttemptCounter(clock);
    expect(await counter.hit('k', 1_000)).toEqual({ count: 1, remainingMs: 1_000 });
    clock.advance(400);
    expect(await counter.hit('k', 1_000)).toEqual({ count: 2, remainingMs: 600 });
    clock.advance(600);
    expect(await counter.peek('k')).toEqual({ count: 0, remainingMs: 0 });
  });
});

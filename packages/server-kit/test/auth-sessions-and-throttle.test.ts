import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  InMemoryAttemptCounter,
  KyselySessionStore,
  LoginThrottle,
  defaultLoginThrottlePolicy,
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
  type SignInSource,
} from '../src/index.js';
import { describeEachDatabase, testRedisEnv } from '../src/testing/index.js';

describeEachDatabase('session manager over a Kysely table', (testDatabase) => {
  const clock = new ManualClock('2026-11-21T10:00:00.000Z');
  let database: Database;
  let sessions: SessionManager;
  const lastSeenOf = async (sessionId: string) =>
    (await database.db.selectFrom('account_sessions').select('last_seen_at').where('id_hash', '=', hashOpaqueToken(sessionId)).executeTakeFirst())?.last_seen_at;

  beforeAll(async () => {
    const env = testDatabase().env;
    database = await openDatabase({ url: env.DATABASE_URL, schema: env.DATABASE_SCHEMA ?? 'public', poolSize: 2, dataDir: env.DATA_DIR!, fileName: 'kit.sqlite', sqliteSynchronous: 'normal' });
    await database.db.schema
      .createTable('account_sessions')
      .addColumn('id_hash', 'text', (col) => col.primaryKey())
      .addColumn('user_id', 'text', (col) => col.notNull())
      .addColumn('created_at', 'bigint', (col) => col.notNull())
      .addColumn('last_seen_at', 'bigint', (col) => col.notNull())
      .addColumn('idle_expires_at', 'bigint', (col) => col.notNull())
      .addColumn('absolute_expires_at', 'bigint', (col) => col.notNull())
      .execute();
    sessions = new SessionManager(new KyselySessionStore(database.db), clock, {
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
    const stored = await database.db.selectFrom('account_sessions').selectAll().execute();
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
    expect(await database.db.selectFrom('account_sessions').selectAll().execute()).toEqual([]);
  });
});

interface ThrottleFixture {
  counter: AttemptCounter;
  /** Lets this much time pass (a manual clock, or real time for Redis). */
  pass(ms: number): Promise<void>;
  /** The first delay: a second on a manual clock, shorter in real time. */
  firstDelayMs: number;
  close(): Promise<void>;
}

function throttleSuite(name: string, makeFixture: () => Promise<ThrottleFixture>) {
  describe(`login throttle (${name})`, () => {
    let throttle: LoginThrottle;
    let fixture: ThrottleFixture;
    beforeAll(async () => {
      fixture = await makeFixture();
      const d = fixture.firstDelayMs;
      throttle = new LoginThrottle(fixture.counter, {
        firstDelayMs: d,
        accountAndAddress: { windowMs: 600 * d, free: 3, maxDelayMs: 8 * d },
        address: { windowMs: 600 * d, free: 5, maxDelayMs: 8 * d },
        account: { windowMs: 600 * d, free: 6, maxDelayMs: 8 * d },
        device: { windowMs: 600 * d, free: 3, maxDelayMs: 8 * d },
      });
    });
    afterAll(async () => {
      await fixture.close();
    });

    const from = (account: string, address: string, device?: string) => ({ account, address, device });
    const fail = async (source: SignInSource, times: number) => {
      for (let i = 0; i < times; i += 1) await throttle.recordFailure(source);
    };
    const refused = (source: SignInSource) => expect(throttle.assertAllowed(source)).rejects.toMatchObject({ code: 'rate-limited', statusCode: 429 });
    const allowed = (source: SignInSource) => expect(throttle.assertAllowed(source)).resolves.toBeUndefined();

    it('slows an account from one address after its allowance, other addresses still pass, and lets it try again after the wait', async () => {
      await fail(from('a@example.com', '10.0.0.1'), 2);
      await allowed(from('a@example.com', '10.0.0.1'));
      await fail(from('a@example.com', '10.0.0.1'), 1);
      await refused(from('a@example.com', '10.0.0.1'));
      await refused(from('A@Example.com', '10.0.0.1'));
      await allowed(from('a@example.com', '10.0.0.2'));
      await fixture.pass(fixture.firstDelayMs + 20);
      await allowed(from('a@example.com', '10.0.0.1'));
    });

    it('slows an address spraying many accounts', async () => {
      for (let i = 0; i < 5; i += 1) await fail(from(`spray-${i}@example.com`, '10.0.1.1'), 1);
      await refused(from('fresh@example.com', '10.0.1.1'));
    });

    it('slows untrusted sources of an account guessed from many addresses, never its trusted devices', async () => {
      for (let i = 0; i < 6; i += 1) await fail(from('target@example.com', `10.0.2.${i}`), 1);
      await refused(from('target@example.com', '10.0.3.1'));
      await allowed(from('target@example.com', '10.0.3.1', 'device-of-the-owner'));
      await allowed(from('target@example.com', '10.0.2.0', 'device-of-the-owner'));
    });

    it('gives each trusted device a budget of its own', async () => {
      await fail(from('d@example.com', '10.0.6.1', 'stolen-laptop'), 3);
      await refused(from('d@example.com', '10.0.6.1', 'stolen-laptop'));
      await allowed(from('d@example.com', '10.0.6.1', 'desk-browser'));
      await allowed(from('d@example.com', '10.0.6.1'));
    });

    it("clears the source's own count after a success", async () => {
      await fail(from('b@example.com', '10.0.4.1'), 2);
      await throttle.recordSuccess(from('b@example.com', '10.0.4.1'));
      await fail(from('b@example.com', '10.0.4.1'), 2);
      await allowed(from('b@example.com', '10.0.4.1'));
    });
  });
}

throttleSuite('in-process', async () => {
  const clock = new ManualClock('2026-11-21T10:00:00.000Z');
  return { counter: new InMemoryAttemptCounter(clock), pass: async (ms) => clock.advance(ms), firstDelayMs: 1_000, close: async () => {} };
});

describe('login throttle delays', () => {
  it('double with each failure past the allowance, up to the bound, and say so in Retry-After', async () => {
    const clock = new ManualClock('2026-11-21T10:00:00.000Z');
    const throttle = new LoginThrottle(new InMemoryAttemptCounter(clock), {
      ...defaultLoginThrottlePolicy,
      accountAndAddress: { windowMs: 3_600_000, free: 5, maxDelayMs: 16_000 },
    });
    const source = { account: 'slow@example.com', address: '10.9.9.9' };
    const waits: number[] = [];
    for (let i = 0; i < 11; i += 1) {
      const error = await throttle.assertAllowed(source).catch((e: unknown) => e as { headers: Record<string, string> });
      if (error) {
        waits.push(Number(error.headers['retry-after']));
        clock.advance(Number(error.headers['retry-after']) * 1000);
      }
      await throttle.recordFailure(source);
    }
    expect(waits).toEqual([1, 2, 4, 8, 16, 16]);
  });
});

const redisEnv = testRedisEnv();
if (redisEnv) {
  throttleSuite('Redis', async () => {
    const redis: Redis = await connectRedis(redisEnv.REDIS_URL!, { keyPrefix: redisEnv.REDIS_KEY_PREFIX!, commandTimeoutMs: 2_000 });
    return {
      counter: new RedisAttemptCounter(redis, 'throttle-test'),
      pass: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      firstDelayMs: 150,
      close: async () => void (await redis.quit()),
    };
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

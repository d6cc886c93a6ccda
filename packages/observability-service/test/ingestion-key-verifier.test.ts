import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from 'kysely';
import { ManualClock, type App, type PostgresChangeFeed } from '@playstack/server-kit';
import { createTestDatabase, describeEachDatabase, testRedisEnv, type TestDatabase } from '@playstack/server-kit/testing';
import { createIngestionKey, ingestionKeySummaries, revokeIngestionKeyById } from '../src/keys/ingestion-keys.js';
import { buildTestApp } from './support/test-app.js';

const legacyKey = 'legacy-key-0123456789abcdef';
const bearer = (key: string) => `Bearer ${key}`;

describeEachDatabase('ingestion key verifier', (database) => {
  const clock = new ManualClock('2026-11-21T10:00:00.000Z');
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp(database(), { SERVICE_API_KEY: legacyKey }, { clock });
  });
  afterAll(async () => {
    await app.close();
  });

  const create = (name: string) => createIngestionKey(app.database.db, { name, createdBy: null, now: clock.now() });

  it('accepts a created key, reporting its id and name', async () => {
    const created = await create('game-server');
    expect(created.key).toMatch(/^obsk_[0-9a-f]{8}_[A-Za-z0-9_-]{43}$/);
    expect(created.key.startsWith(`${created.prefix}_`)).toBe(true);
    expect(await app.ingestionKeys.verify(bearer(created.key))).toEqual({ keyId: created.id, name: 'game-server', legacy: false });
  });

  it('accepts two active keys at once, so a key can be rotated without downtime', async () => {
    const [a, b] = [await create('old'), await create('new')];
    expect((await app.ingestionKeys.verify(bearer(a.key)))?.keyId).toBe(a.id);
    expect((await app.ingestionKeys.verify(bearer(b.key)))?.keyId).toBe(b.id);
  });

  it('refuses a revoked key at once, even after it was cached', async () => {
    const created = await create('to-revoke');
    expect(await app.ingestionKeys.verify(bearer(created.key))).toBeDefined();
    expect(await revokeIngestionKeyById(app.database.db, created.id, clock.now())).toBe(true);
    await app.ingestionKeys.keysChanged();
    expect(await app.ingestionKeys.verify(bearer(created.key))).toBeUndefined();
  });

  it('refuses missing, malformed, unknown and near-miss credentials', async () => {
    const created = await create('near-miss');
    expect(await app.ingestionKeys.verify(undefined)).toBeUndefined();
    expect(await app.ingestionKeys.verify('')).toBeUndefined();
    expect(await app.ingestionKeys.verify(created.key)).toBeUndefined();
    expect(await app.ingestionKeys.verify(`Basic ${created.key}`)).toBeUndefined();
    expect(await app.ingestionKeys.verify(bearer(`${created.key}x`))).toBeUndefined();
    expect(await app.ingestionKeys.verify(bearer('obsk_00000000_unknown'))).toBeUndefined();
  });

  it('answers repeat envelopes from its cache, not the database', async () => {
    const created = await create('cached');
    expect(await app.ingestionKeys.verify(bearer(created.key))).toBeDefined();
    // Deleting the row behind the verifier's back (no keysChanged) shows it is not asked again.
    await app.database.db.deleteFrom('ingestion_keys').where('id', '=', created.id).execute();
    expect(await app.ingestionKeys.verify(bearer(created.key))).toBeDefined();
    await app.ingestionKeys.keysChanged();
    expect(await app.ingestionKeys.verify(bearer(created.key))).toBeUndefined();
  });

  it('records last use in batches, not with a write per envelope', async () => {
    const created = await create('last-used');
    clock.set('2026-11-21T11:00:00.000Z');
    await app.ingestionKeys.verify(bearer(created.key));
    const lastUsedOf = async () => (await ingestionKeySummaries(app.database.db)).find((k) => k.id === created.id)?.lastUsedAt;
    expect(await lastUsedOf()).toBeNull();
    clock.set('2026-11-21T11:00:05.000Z');
    await app.ingestionKeys.verify(bearer(created.key));
    await app.ingestionKeys.flushLastUsed();
    expect(await lastUsedOf()).toBe(Date.parse('2026-11-21T11:00:05.000Z'));
  });

  it('accepts the legacy SERVICE_API_KEY, counts each use and logs it as legacy once per boot', async () => {
    const warn = vi.spyOn(app.log, 'warn');
    expect(await app.ingestionKeys.verify(bearer(legacyKey))).toEqual({ keyId: 'legacy', name: 'SERVICE_API_KEY', legacy: true });
    expect(await app.ingestionKeys.verify(bearer(legacyKey))).toMatchObject({ legacy: true });
    expect(await app.ingestionKeys.verify(bearer(`${legacyKey}0`))).toBeUndefined();
    const metrics = await app.metrics.getSingleMetricAsString('observability_ingest_legacy_key_uses_total');
    expect(metrics).toMatch(/observability_ingest_legacy_key_uses_total 2$/m);
    expect(warn.mock.calls.filter(([message]) => String(message).includes('legacy SERVICE_API_KEY'))).toHaveLength(1);
    warn.mockRestore();
  });

  it('refuses the legacy key once SERVICE_API_KEY is unset', async () => {
    const withoutLegacy = await buildTestApp(database());
    try {
      expect(await withoutLegacy.ingestionKeys.verify(bearer(legacyKey))).toBeUndefined();
    } finally {
      await withoutLegacy.close();
    }
  });
});

describeEachDatabase('ingestion key revocation across instances without Redis', (database) => {
  const clock = new ManualClock('2026-11-21T10:00:00.000Z');
  let first: App;
  let second: App;
  beforeAll(async () => {
    first = await buildTestApp(database(), {}, { clock });
    second = await buildTestApp(database(), {}, { clock });
  });
  afterAll(async () => {
    await first.close();
    await second.close();
  });

  it('reaches the other instance at once on PostgreSQL (LISTEN/NOTIFY), once its cache entry expires (30 s) otherwise', async () => {
    const created = await createIngestionKey(first.database.db, { name: 'shared', createdBy: null, now: clock.now() });
    expect(await second.ingestionKeys.verify(bearer(created.key))).toBeDefined();
    await revokeIngestionKeyById(first.database.db, created.id, clock.now());
    await first.ingestionKeys.keysChanged();
    if (database().dialect === 'postgres') {
      await vi.waitFor(async () => expect(await second.ingestionKeys.verify(bearer(created.key))).toBeUndefined(), { timeout: 1_000, interval: 10 });
      return;
    }
    // SQLite is one instance per file; two on one file share nothing else.
    expect(await second.ingestionKeys.verify(bearer(created.key))).toBeDefined();
    clock.advance(30_000);
    expect(await second.ingestionKeys.verify(bearer(created.key))).toBeUndefined();
  });
});

if (process.env.TEST_DATABASE_URL) {
  describe('ingestion key revocation across PostgreSQL instances whose listening connection drops', () => {
    const clock = new ManualClock('2026-11-21T10:00:00.000Z');
    let database: TestDatabase;
    let first: App;
    let second: App;
    beforeAll(async () => {
      database = await createTestDatabase('postgres');
      first = await buildTestApp(database, {}, { clock });
      second = await buildTestApp(database, {}, { clock });
    });
    afterAll(async () => {
      await first?.close();
      await second?.close();
      await database?.dispose();
    });

    it('catches up with a revocation announced while its listening connection was down', async () => {
      const created = await createIngestionKey(first.database.db, { name: 'while-down', createdBy: null, now: clock.now() });
      const channel = (second.changes as PostgresChangeFeed).channel;
      await terminateListeners(first, channel);
      // Cached around the cut, then revoked while the second instance does not listen: it does
      // not hear of it, and the clock stands still, so only the catch-up on reconnection helps.
      expect(await second.ingestionKeys.verify(bearer(created.key))).toBeDefined();
      await revokeIngestionKeyById(first.database.db, created.id, clock.now());
      await first.ingestionKeys.keysChanged();
      await vi.waitFor(async () => expect(await second.ingestionKeys.verify(bearer(created.key))).toBeUndefined(), { timeout: 3_000, interval: 20 });
    });
  });
}

/** Ends every session listening on the channel, as a network cut or a PostgreSQL restart would. */
async function terminateListeners(app: App, channel: string): Promise<void> {
  await sql`select pg_terminate_backend(pid) from pg_stat_activity where application_name = ${channel}`.execute(app.database.db);
}

const redisEnv = testRedisEnv();
if (redisEnv) {
  describeEachDatabase('ingestion key revocation across instances with Redis', (database) => {
    let first: App;
    let second: App;
    beforeAll(async () => {
      first = await buildTestApp(database(), redisEnv);
      second = await buildTestApp(database(), redisEnv);
    });
    afterAll(async () => {
      await first.close();
      await second.close();
    });

    it('stops a key revoked on one instance from working on the other', async () => {
      const created = await createIngestionKey(first.database.db, { name: 'shared', createdBy: null, now: Date.now() });
      expect(await second.ingestionKeys.verify(bearer(created.key))).toBeDefined();
      await revokeIngestionKeyById(first.database.db, created.id, Date.now());
      await first.ingestionKeys.keysChanged();
      await vi.waitFor(async () => expect(await second.ingestionKeys.verify(bearer(created.key))).toBeUndefined(), { timeout: 2_000, interval: 10 });
    });
  });
}

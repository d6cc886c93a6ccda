import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, openDatabase, type App } from '@playstack/server-kit';
import { createTestDatabase, describeEachDatabase, testDialects, type TestDatabase } from '@playstack/server-kit/testing';
import { storeRetentionDays } from '../src/retention/retention-store.js';
import { compactionLock } from '../src/query/tier-compactor.js';
import { envelope, minimalOccurrence } from './support/envelopes.js';
import { buildTestApp } from './support/test-app.js';

const legacyKey = 'retention-test-key-0123456789';
const dayMs = 86_400_000;
const start = Date.parse('2026-11-01T00:00:00.000Z');

describeEachDatabase('retention', (database) => {
  const clock = new ManualClock(start);
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp(
      database(),
      { SERVICE_API_KEY: legacyKey, RETENTION_PRUNE_BATCH_ROWS: '100', RETENTION_PRUNE_INTERVAL_SECONDS: '3600', INGEST_RATE_LIMIT_PER_SECOND: '100000' },
      { clock },
    );
    // The pass the service starts once ready, out of the way: a pass asked for while one runs joins it.
    await app.ready();
    await app.retention.pruner.pruneOnce();
  });
  afterAll(async () => {
    await app.close();
  });

  const ingest = async (count: number, at: number, service: string) => {
    const occurrences = Array.from({ length: count }, (_, i) => minimalOccurrence(new Date(at + i).toISOString(), { operation: `op-${i % 3}` }));
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/ingest',
      headers: { authorization: `Bearer ${legacyKey}`, 'content-type': 'application/json' },
      payload: JSON.stringify(envelope(occurrences, { service, environment: 'production' })),
    });
    return response.json();
  };
  const countOf = async (table: 'occurrences' | 'operation_rollups', service: string) =>
    Number((await app.database.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).where('service', '=', service).executeTakeFirstOrThrow()).n);

  it('prunes raw rows and rollups older than the default 14 days, in batches, and keeps newer data', async () => {
    expect(app.retention.policy.days).toBe(14);
    await ingest(250, start, 'old');
    clock.set(start + 10 * dayMs);
    await ingest(5, clock.now(), 'recent');
    clock.set(start + 14 * dayMs + 60_000);

    const result = await app.retention.pruner.pruneOnce();
    expect(result.occurrences).toBe(250);
    expect(result.rollupRows).toBe(3);
    expect(await countOf('occurrences', 'old')).toBe(0);
    expect(await countOf('operation_rollups', 'old')).toBe(0);
    expect(await countOf('occurrences', 'recent')).toBe(5);
    expect(await countOf('operation_rollups', 'recent')).toBe(3);
  });

  it('refuses occurrences that start before the retention window', async () => {
    const body = await ingest(1, clock.now() - 15 * dayMs, 'too-old');
    expect(body.rejected).toEqual({ occurrences: 1, logs: 0 });
    expect(body.errors[0].message).toMatch(/older than the retention period/);
  });

  it('applies the retention an admin sets, from the next run', async () => {
    await storeRetentionDays(app.database.db, 3, clock.now());
    const result = await app.retention.pruner.pruneOnce();
    expect(app.retention.policy.days).toBe(3);
    expect(result.occurrences).toBe(5);
    expect(await countOf('occurrences', 'recent')).toBe(0);
    await storeRetentionDays(app.database.db, 14, clock.now());
    await app.retention.pruner.pruneOnce();
  });

  it('lets envelopes commit while a large backlog is being pruned', async () => {
    // 200 batches of 100: one envelope's commit takes a few event loop turns, the whole prune a
    // couple of hundred, so even a loaded machine commits the envelope long before the prune ends.
    const old = clock.now() - 13 * dayMs;
    for (let i = 0; i < 40; i++) await ingest(500, old + i * 1000, 'backlog');
    clock.advance(2 * dayMs);
    const order: string[] = [];
    const pruning = app.retention.pruner.pruneOnce().then((result) => {
      order.push('pruned');
      return result;
    });
    const ingesting = ingest(1, clock.now(), 'live').then((body) => {
      order.push('ingested');
      return body;
    });
    const [pruned, ingested] = await Promise.all([pruning, ingesting]);
    expect(pruned.occurrences).toBe(20_000);
    expect(ingested.accepted).toEqual({ occurrences: 1, logs: 0 });
    expect(order).toEqual(['ingested', 'pruned']);
  });
});

// Several instances share a database only on PostgreSQL (one instance per SQLite file).
if (testDialects().includes('postgres')) {
  describe('retention beside a compaction on another instance [postgres]', () => {
    const clock = new ManualClock(start);
    let database: TestDatabase;
    let app: App;
    beforeAll(async () => {
      database = await createTestDatabase('postgres');
      app = await buildTestApp(database, { SERVICE_API_KEY: legacyKey, RETENTION_PRUNE_INTERVAL_SECONDS: '3600', ROLLUP_TIER_INTERVAL_SECONDS: '3600' }, { clock });
      // The runs the service starts once ready, out of the way: a run asked for while one runs joins it.
      await app.ready();
      await Promise.all([app.tierCompactor.runOnce(), app.retention.pruner.pruneOnce()]);
    });
    afterAll(async () => {
      await app.close();
      await database.dispose();
    });

    /** Holds the compaction lock on a connection of its own, as a compaction on another instance does; call the result to release it. */
    async function holdCompactionLock(): Promise<() => Promise<void>> {
      const other = await openDatabase({ url: database.env.DATABASE_URL, schema: database.env.DATABASE_SCHEMA!, poolSize: 1, dataDir: '', fileName: '', sqliteSynchronous: 'normal' });
      let release!: () => void;
      let held!: () => void;
      const isHeld = new Promise<void>((resolve) => (held = resolve));
      const holding = other.db.transaction().execute(async (trx) => {
        await sql`select pg_advisory_xact_lock(${compactionLock})`.execute(trx);
        held();
        await new Promise<void>((resolve) => (release = resolve));
      });
      await isHeld;
      return async () => {
        release();
        await holding;
        await other.close();
      };
    }

    it('prunes tier buckets only once the compaction has committed, so it cannot write one back', async () => {
      const response = await app.inject({
        method: 'POST',
        url: '/api/v1/ingest',
        headers: { authorization: `Bearer ${legacyKey}`, 'content-type': 'application/json' },
        payload: JSON.stringify(envelope([minimalOccurrence(new Date(start - 3_600_000).toISOString(), { operation: 'op' })], { service: 'tiered', environment: 'production' })),
      });
      expect(response.json().accepted).toEqual({ occurrences: 1, logs: 0 });
      await app.tierCompactor.runOnce();
      const tierRows = async () =>
        Number((await app.database.db.selectFrom('service_tiers').select((eb) => eb.fn.countAll().as('n')).where('service', '=', 'tiered').executeTakeFirstOrThrow()).n);
      expect(await tierRows()).toBeGreaterThan(0);
      clock.set(start + 15 * dayMs);

      const release = await holdCompactionLock();
      let settled = false;
      const pruning = app.retention.pruner.pruneOnce().finally(() => (settled = true));
      try {
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(settled).toBe(false);
        expect(await tierRows()).toBeGreaterThan(0);
      } finally {
        await release();
      }
      expect((await pruning).occurrences).toBe(1);
      expect(await tierRows()).toBe(0);
    });
  });
}

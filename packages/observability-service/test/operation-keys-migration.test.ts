import { afterAll, expect, it } from 'vitest';
import { ManualClock, type App } from '@playstack/server-kit';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { sql } from 'kysely';
import { operationTiers } from '../src/query/rollup-tiers.js';
import { tierWatermark } from '../src/query/tier-watermark.js';
import { asBrowser, setUpFirstAdmin } from './support/browser-session.js';
import { generateDataSet } from './support/generated-occurrences.js';
import { databaseMigratedUpTo, legacyDatabaseWithOccurrences } from './support/legacy-database.js';
import { buildTestApp } from './support/test-app.js';

const now = Date.UTC(2026, 11, 4, 9, 41, 20);
const dayMs = 86_400_000;

describeEachDatabase('upgrading a database whose operation tiers hold their keys as text', (database) => {
  let app: App | undefined;
  afterAll(async () => {
    await app?.close();
  });

  it('recomputes the tiers keyed by dictionary ids and answers the same before and after', async () => {
    const legacy = await databaseMigratedUpTo(database(), '20261203160000-six-hour-tier');
    const clock = new ManualClock(now);
    const data = generateDataSet(now, 400);
    const caughtUp = await legacyDatabaseWithOccurrences(legacy, data.rows, clock);
    expect(caughtUp).toBeGreaterThan(0);
    // What the previous release's compactor left beside its watermark: text-keyed hourly operation tiers.
    await sql`
      insert into operation_tiers (tier_ms, grain, bucket, service, environment, operation, kind, span_role, count, error_count, duration_sum_ms, duration_max_ms, histogram, error_histogram)
      select 3600000, 0, minute - (minute % 3600000), service, environment, operation, kind, span_role, sum(count), sum(error_count), sum(duration_sum_ms), max(duration_max_ms), '', ''
      from operation_rollups group by minute - (minute % 3600000), service, environment, operation, kind, span_role
    `.execute(legacy.db);
    await legacy.close();

    app = await buildTestApp(database(), { ROLLUP_TIER_INTERVAL_SECONDS: '3600' }, { clock });
    expect(await tierWatermark(app.database.db)).toBe(0);
    const db = app.database.db;
    // Recreated empty: derived data the compactor rebuilds.
    expect(Number((await db.selectFrom('operation_tiers').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)).toBe(0);
    const session = await setUpFirstAdmin(app);
    const urls = [
      '/api/v1/operations?limit=100',
      `/api/v1/operations?limit=100&service=orders&from=${new Date(now - 3 * dayMs).toISOString()}`,
      '/api/v1/operations?limit=100&environment=staging&entry=true',
    ];
    const read = async () => Promise.all(urls.map(async (url) => (await asBrowser(app!, session, { method: 'GET', url })).json()));
    // Until the compactor runs, from the per-minute rollups.
    const before = await read();
    for (const body of before) expect(body.operations.length).toBeGreaterThan(0);

    await app.tierCompactor.runOnce();
    expect(await tierWatermark(db)).toBe(caughtUp);
    // One dictionary row per distinct key of the rollups, and every tier row names one of them.
    const distinct = await db.selectFrom('operation_rollups').select(['service', 'environment', 'operation', 'kind', 'span_role']).distinct().execute();
    const keys = await db.selectFrom('operation_keys').select(['id', 'service', 'environment', 'operation', 'kind', 'span_role']).execute();
    expect(keys).toHaveLength(distinct.length);
    const orphans = await db
      .selectFrom('operation_tiers')
      .leftJoin('operation_keys', 'operation_keys.id', 'operation_tiers.operation_key')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('operation_keys.id', 'is', null)
      .executeTakeFirstOrThrow();
    expect(Number(orphans.n)).toBe(0);
    // Every size the operation tiers keep was computed, 5-minute buckets included.
    const sizes = await db.selectFrom('operation_tiers').select('tier_ms').distinct().orderBy('tier_ms').execute();
    expect(sizes.map((row) => Number(row.tier_ms))).toEqual([...operationTiers.sizesMs]);
    expect(await read()).toEqual(before);

    // Recomputing the same minutes (a re-run from the start) gives no key a second id.
    await db.updateTable('rollup_tier_state').set({ value: 0 }).where('name', '=', 'occurrence-id').execute();
    await app.tierCompactor.runOnce();
    expect(await db.selectFrom('operation_keys').select(['id', 'service', 'environment', 'operation', 'kind', 'span_role']).execute()).toEqual(keys);
    expect(await read()).toEqual(before);
  }, 120_000);
});

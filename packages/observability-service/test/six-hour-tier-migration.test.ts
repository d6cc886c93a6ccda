import { afterAll, expect, it } from 'vitest';
import { ManualClock, type App } from '@playstack/server-kit';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { allTierDimensions } from '../src/query/rollup-tiers.js';
import { tierWatermark } from '../src/query/tier-watermark.js';
import { countedRows, inRange } from './support/brute-force.js';
import { asBrowser, setUpFirstAdmin } from './support/browser-session.js';
import { generateDataSet } from './support/generated-occurrences.js';
import { databaseMigratedUpTo, legacyDatabaseWithOccurrences } from './support/legacy-database.js';
import { buildTestApp } from './support/test-app.js';

const now = Date.UTC(2026, 11, 3, 11, 37, 20);
const hourMs = 3_600_000;
const sixHoursMs = 6 * hourMs;
/** The tiers that keep 6-hour buckets (the others stop at hours). */
const sixHourTables = allTierDimensions.filter((dimension) => dimension.sizesMs.includes(sixHoursMs)).map((dimension) => dimension.table);

describeEachDatabase('upgrading a database whose rollup tiers predate the 6-hour buckets', (database) => {
  let app: App | undefined;
  afterAll(async () => {
    await app?.close();
  });

  it('recomputes the tiers, 6-hour buckets included, and answers exactly before and after', async () => {
    const legacy = await databaseMigratedUpTo(database(), '20261127183000-logs-text-index-columnsize');
    const clock = new ManualClock(now);
    const data = generateDataSet(now, 400);
    const caughtUp = await legacyDatabaseWithOccurrences(legacy, data.rows, clock);
    expect(caughtUp).toBeGreaterThan(0);
    await legacy.close();

    app = await buildTestApp(database(), { ROLLUP_TIER_INTERVAL_SECONDS: '3600' }, { clock });
    // The tiers are stale until recomputed: the watermark is back at the start.
    expect(await tierWatermark(app.database.db)).toBe(0);
    const session = await setUpFirstAdmin(app);
    const expected = countedRows(inRange(data.rows, now - 24 * hourMs - (now % 60_000), now)).length;
    const summary = async () => (await asBrowser(app!, session, { method: 'GET', url: '/api/v1/summary' })).json().count;
    const services = async () => (await asBrowser(app!, session, { method: 'GET', url: '/api/v1/services' })).json().services;
    expect(await summary()).toBe(expected);
    const before = await services();

    await app.tierCompactor.runOnce();
    expect(await tierWatermark(app.database.db)).toBe(caughtUp);
    expect(sixHourTables).toEqual(['tenant_tiers', 'dependency_tiers', 'operation_tiers']);
    for (const table of sixHourTables) {
      const sixHourRows = await app.database.db.selectFrom(table as never).select((eb) => eb.fn.countAll().as('n')).where('tier_ms' as never, '=', sixHoursMs as never).executeTakeFirstOrThrow();
      expect(Number((sixHourRows as { n: unknown }).n), table).toBeGreaterThan(0);
    }
    expect(await summary()).toBe(expected);
    expect(await services()).toEqual(before);
  }, 120_000);
});

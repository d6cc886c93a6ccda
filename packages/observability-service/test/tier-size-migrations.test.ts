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

/**
 * Migrations that add a tier size: a database migrated up to the one before (its tiers caught
 * up), then upgraded, must answer exactly while the compactor recomputes and after, with buckets
 * of the new size in the tiers that keep it.
 */
const upgrades = [
  { size: '6-hour', sizeMs: 6 * hourMs, before: '20261127183000-logs-text-index-columnsize', tables: ['tenant_tiers', 'dependency_tiers', 'operation_tiers'] },
  { size: '5-minute', sizeMs: 5 * 60_000, before: '20261207130000-occurrences-time-covering-index', tables: ['dependency_tiers', 'operation_tiers'] },
];

for (const { size, sizeMs, before, tables } of upgrades) {
  describeEachDatabase(`upgrading a database whose rollup tiers predate the ${size} buckets`, (database) => {
    let app: App | undefined;
    afterAll(async () => {
      await app?.close();
    });

    it(`recomputes the tiers, ${size} buckets included, and answers exactly before and after`, async () => {
      const legacy = await databaseMigratedUpTo(database(), before);
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
      const read = async (url: string) => (await asBrowser(app!, session, { method: 'GET', url })).json();
      const summary = async () => (await read('/api/v1/summary')).count;
      // An unaligned range: its ends read the finest tiers.
      const dependencies = async () => (await read(`/api/v1/dependencies?from=${new Date(now - 5 * hourMs - 7 * 60_000).toISOString()}`)).edges;
      expect(await summary()).toBe(expected);
      const servicesBefore = await read('/api/v1/services');
      const edgesBefore = await dependencies();
      expect(edgesBefore.length).toBeGreaterThan(0);

      await app.tierCompactor.runOnce();
      expect(await tierWatermark(app.database.db)).toBe(caughtUp);
      expect(allTierDimensions.filter((dimension) => dimension.sizesMs.includes(sizeMs)).map((dimension) => dimension.table)).toEqual(tables);
      for (const table of tables) {
        const rows = await app.database.db.selectFrom(table as never).select((eb) => eb.fn.countAll().as('n')).where('tier_ms' as never, '=', sizeMs as never).executeTakeFirstOrThrow();
        expect(Number((rows as { n: unknown }).n), table).toBeGreaterThan(0);
      }
      expect(await summary()).toBe(expected);
      expect(await read('/api/v1/services')).toEqual(servicesBefore);
      expect(await dependencies()).toEqual(edgesBefore);
    }, 120_000);
  });
}

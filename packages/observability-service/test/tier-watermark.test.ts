import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { ManualClock, type App } from '@playstack/server-kit';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { OccurrenceWriter } from '../src/telemetry/occurrence-writer.js';
import { telemetryDatabase } from '../src/storage/telemetry-database.js';
import { dirtyMinutesNow, dirtyRowsMax, newestOccurrenceId, tierWatermark, tracesWrittenBetween } from '../src/query/tier-watermark.js';
import { generateDataSet, generatedRow } from './support/generated-occurrences.js';
import { buildTestApp } from './support/test-app.js';

const now = Date.parse('2026-11-21T12:00:00.000Z');
const minute = 60_000;
const traceId = '0123456789abcdef0123456789abcdef';

/** One span of a trace (`traceId` unless given) starting at `startedAt`. */
const spanAt = (spanId: string, startedAt: number, trace = traceId) =>
  generatedRow({ service: 'orders', environment: 'production' }, { traceId: trace, spanId, operation: 'GET /orders', kind: 'server', startedAt: new Date(startedAt).toISOString(), durationMs: 12, status: 'ok' });

describeEachDatabase('the tiers\' watermark: which minutes a read takes from the per-minute rollups', (database) => {
  const clock = new ManualClock(now);
  let app: App;
  let writer: OccurrenceWriter;
  const db = () => telemetryDatabase(app.database).db;

  beforeAll(async () => {
    app = await buildTestApp(database(), { ROLLUP_TIER_INTERVAL_SECONDS: '3600' }, { clock });
    writer = new OccurrenceWriter({ database: app.database, clock, maxRowsPerTransaction: 10_000 });
    await writer.write(generateDataSet(now, 300).rows);
  }, 60_000);
  afterAll(async () => {
    await app?.close();
  });

  it('names no minute once the tiers hold every occurrence, then every minute of each trace written since', async () => {
    const early = now - 90 * minute + 5_000;
    await writer.write([spanAt('00000000000000a1', early)]);
    await app.tierCompactor.runOnce();
    expect(await tierWatermark(db())).toBe(await newestOccurrenceId(db()));
    expect(await dirtyMinutesNow(db())).toEqual(new Set());

    // A later span of a trace the tiers already hold: its minute and the trace's earlier one.
    const late = now - 20 * minute + 30_000;
    await writer.write([spanAt('00000000000000a2', late)]);
    expect(await dirtyMinutesNow(db())).toEqual(new Set([early - (early % minute), late - (late % minute)]));
  });

  it(`reads the per-minute rollups only once more than ${dirtyRowsMax.toLocaleString('en')} ids lie beyond the watermark`, async () => {
    await app.tierCompactor.runOnce();
    await writer.write([spanAt('00000000000000b1', now - 5 * minute, 'fedcba9876543210fedcba9876543210')]);
    expect((await dirtyMinutesNow(db()))?.size).toBe(1);
    // Ids jump (a sequence's gap, or that many rows arriving): the newest id alone decides.
    const newest = await newestOccurrenceId(db());
    await sql`update occurrences set id = ${newest + dirtyRowsMax} where id = ${newest}`.execute(db());
    expect(await dirtyMinutesNow(db())).toBeUndefined();
  });

  it('finds the occurrences written since the watermark through the primary key, with or without statistics', async () => {
    const newest = await newestOccurrenceId(db());
    const query = tracesWrittenBetween(db(), newest - 10, newest).compile();
    const explain = async () => {
      const prefix = database().dialect === 'postgres' ? 'explain ' : 'explain query plan ';
      let next = 0;
      const inlined = query.sql.replace(/\$(\d+)|\?/g, (_, n: string | undefined) => String(query.parameters[n ? Number(n) - 1 : next++]));
      const result = await sql.raw<Record<string, unknown>>(prefix + inlined).execute(db());
      return result.rows.map((row) => String(row['QUERY PLAN'] ?? row.detail)).join('\n');
    };
    // A table the planner has no statistics of (PostgreSQL before autovacuum's first ANALYZE).
    const plan = await explain();
    if (database().dialect === 'postgres') {
      expect(plan).toMatch(/occurrences_pkey/);
      expect(plan).not.toMatch(/Seq Scan/);
      await sql`analyze occurrences`.execute(db());
      expect(await explain()).not.toMatch(/Seq Scan/);
    } else {
      expect(plan).toMatch(/USING INTEGER PRIMARY KEY \(rowid>\? AND rowid<\?\)/);
    }
  });
});

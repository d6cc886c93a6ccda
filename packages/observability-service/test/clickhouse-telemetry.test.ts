import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, type App } from '@playstack/server-kit';
import { clickHouseAvailable, describeEachDatabase, startTestClickHouse, type TestClickHouse } from '@playstack/server-kit/testing';
import { databaseView } from '../src/query/database-view.js';
import { operationsView } from '../src/query/operations-view.js';
import { aggregateRollups, type RollupAggregate } from '../src/query/rollup-aggregate.js';
import { servicesView } from '../src/query/services-view.js';
import { summaryView } from '../src/query/summary-view.js';
import { trendView } from '../src/query/trend-view.js';
import { apdexThresholdsFrom } from '../src/service-settings/service-settings.js';
import { LatencyHistogram } from '../src/storage/latency-histogram.js';
import type { NewOccurrence } from '../src/storage/storage-tables.js';
import { createClient } from '@clickhouse/client';
import { clickHouseMigrations, migrateClickHouse, type ClickHouseMigration } from '../src/telemetry/clickhouse/clickhouse-migrations.js';
import { ClickHouseTelemetry } from '../src/telemetry/clickhouse/clickhouse-telemetry.js';
import type { ClickHouseRollupQuery } from '../src/telemetry/clickhouse/clickhouse-rollups.js';
import { dayMs, minuteMs } from '../src/time-units.js';
import { generateDataSet } from './support/generated-occurrences.js';
import { buildTestApp } from './support/test-app.js';

// ClickHouse as the telemetry store, on the server CI runs (Debian's 18.16) or TEST_CLICKHOUSE_URL:
// the schema, the write path, the rollups (same figures as the SQL store's from the same data),
// several writers on one minute, retention by day partitions, trace reads.

const now = Date.parse('2026-11-21T12:00:00.000Z');
const hourMs = 3_600_000;

/** Doubles to 9 significant digits: sums of durations depend on the order each store adds them in. */
const double = (value: number) => Number(value.toPrecision(9));

/** A group as compared: histograms as their merged buckets (the SQL store joins per-minute texts). */
function comparable(groups: readonly RollupAggregate[]) {
  const buckets = (text: string | null) => (text ? text.split(',').reduce((h, part) => h.merge(LatencyHistogram.decode(part)), new LatencyHistogram()).buckets() : []);
  return groups
    .map((group) => ({
      keys: group.keys,
      bucketStartMs: group.bucketStartMs,
      count: group.count,
      errorCount: group.errorCount,
      durationSumMs: double(group.durationSumMs),
      durationMaxMs: double(group.durationMaxMs),
      histogram: buckets(group.histogram),
      errorHistogram: buckets(group.errorHistogram),
      extra: group.extra,
    }))
    .sort((a, b) => (JSON.stringify([a.bucketStartMs, a.keys]) < JSON.stringify([b.bucketStartMs, b.keys]) ? -1 : 1));
}

const range = { fromMs: now - 3 * dayMs, toMs: now + minuteMs };
const rollupQueries: Array<{ name: string; query: ClickHouseRollupQuery }> = [
  { name: 'services by role, with histograms', query: { table: 'operation_rollups', range, groupBy: ['service', 'environment', 'span_role'], withHistogram: true, withErrorHistogram: true } },
  { name: 'one service per hour', query: { table: 'operation_rollups', range, equals: { service: 'orders' }, groupBy: ['operation', 'kind'], bucketMs: hourMs, withHistogram: true } },
  { name: 'a part of a day, no grouping', query: { table: 'operation_rollups', range: { fromMs: now - 5 * hourMs - 17_000, toMs: now - 2 * hourMs + 5_000 }, withHistogram: true } },
  { name: 'tenants per day', query: { table: 'tenant_rollups', range, groupBy: ['tenant_id', 'service', 'environment'], bucketMs: dayMs } },
  { name: 'statements', query: { table: 'statement_rollups', range, groupBy: ['db_system', 'statement_hash'], withHistogram: true, extraColumns: ['statement', 'db_operation'] } },
];

// Declared only where ClickHouse can run; the run's closing account says when it was left out.
if (clickHouseAvailable()) describe('ClickHouse telemetry store', () => {
  let clickHouse: TestClickHouse;
  const stores: ClickHouseTelemetry[] = [];
  const clock = new ManualClock(now);
  const open = (database: string) => {
    const store = new ClickHouseTelemetry({ url: clickHouse.url, database, clock, maxRowsPerInsert: 10_000 });
    stores.push(store);
    return store;
  };

  beforeAll(async () => {
    clickHouse = await startTestClickHouse();
  }, 120_000);
  afterAll(async () => {
    for (const store of stores) {
      await store.dropDatabase().catch(() => undefined);
      await store.close();
    }
    await clickHouse?.dispose();
  });

  it('creates its schema once: a second migration run applies nothing', async () => {
    const store = open(clickHouse.database());
    expect(await store.migrate()).toEqual(['2026-11-27-01-telemetry', '2026-11-27-10-error-groups', '2026-11-28-01-logs', '2026-12-01-01-rollup-tiers', '2026-12-01-02-trace-index', '2026-12-01-03-tier-histograms', '2026-12-02-01-dependency-edges', '2026-12-02-02-unread-views']);
    expect(await store.migrate()).toEqual([]);
    expect(await open(store.database).migrate()).toEqual([]);
  });

  it('fills the rollup tiers, their histogram rows, the trace index and the minutes\' receipts from the spans stored before an upgrade', async () => {
    const data = generateDataSet(now, 600, 7);
    const upgraded = open(clickHouse.database());
    const client = createClient({ url: clickHouse.url });
    try {
      await migrateClickHouse(client, upgraded.database, clickHouseMigrations.filter((migration) => migration.version < '2026-12-01'));
      await upgraded.write(data.rows);
    } finally {
      await client.close();
    }
    expect(await upgraded.migrate()).toEqual(['2026-12-01-01-rollup-tiers', '2026-12-01-02-trace-index', '2026-12-01-03-tier-histograms', '2026-12-02-01-dependency-edges', '2026-12-02-02-unread-views']);
    const fresh = open(clickHouse.database());
    await fresh.migrate();
    await fresh.write(data.rows);
    for (const { query } of rollupQueries) expect(comparable(await upgraded.aggregate(query))).toEqual(comparable(await fresh.aggregate(query)));
    // Ids aside: each store's writer assigns its own.
    const withoutIds = (view: Awaited<ReturnType<typeof upgraded.trace>>) => ({ ...view, spans: view.spans.map(({ id: _id, ...span }) => span) });
    expect(withoutIds(await upgraded.trace(data.traceId))).toEqual(withoutIds(await fresh.trace(data.traceId)));
    // No read uses trace_days or the tenant and statement rollups any more: they are not fed (the
    // upgraded store keeps the rows written before, until retention drops their days).
    const [freshRows, upgradedRows] = [await fresh.tableRows(), await upgraded.tableRows()];
    for (const name of ['trace_days', 'tenant_rollups', 'statement_rollups']) {
      expect(freshRows.get(name) ?? 0).toBe(0);
      expect(upgradedRows.get(name)).toBeGreaterThan(0);
    }
    const views = await fresh.rows<{ name: string }>(`SELECT name FROM system.tables WHERE database = '${fresh.database}' AND engine = 'MaterializedView' ORDER BY name`);
    const names = views.map((view) => view.name);
    expect(names.filter((name) => ['trace_days_mv', 'tenant_rollups_mv', 'statement_rollups_mv'].includes(name))).toEqual([]);
    expect(names).toEqual(expect.arrayContaining(['operation_rollups_mv', 'trace_index_mv', 'tenant_tiers_mv', 'statement_tiers_mv']));
    // Every minute with spans has its latest receipt, so the dependency resolver finds them all.
    const minutesOf = (store: ClickHouseTelemetry) => store.rows<{ minute: string }>(`SELECT DISTINCT minute FROM ${store.database}.occurrence_minutes ORDER BY minute`);
    const stored = await upgraded.rows<{ n: string }>(`SELECT uniqExact(toUInt64(floor(started_at / 60000))) AS n FROM ${upgraded.database}.occurrences`);
    expect((await minutesOf(upgraded)).length).toBe(Number(stored[0]!.n));
    expect(await minutesOf(upgraded)).toEqual(await minutesOf(fresh));
  });

  it('goes on with an interrupted fill where it stopped: no day filled twice, the same cut-off', async () => {
    const data = generateDataSet(now, 600, 7);
    const store = open(clickHouse.database());
    await store.migrate();
    await store.write(data.rows);
    const days = (await store.rows<{ day: string; n: string }>(`SELECT toString(day) AS day, count() AS n FROM ${store.database}.occurrences GROUP BY day ORDER BY day`)).map(
      (row) => ({ day: row.day, n: Number(row.n) }),
    );
    expect(days.length).toBeGreaterThanOrEqual(2);
    const failingOn = days[1]!.day;
    // A version whose second statement of each day fails on the second day, the first time only.
    const fill = (failing: boolean): ClickHouseMigration => ({
      version: '2099-01-01-01-fill-test',
      statements: [
        'CREATE TABLE IF NOT EXISTS {db}.fill_counts (day Date, n UInt64) ENGINE = MergeTree ORDER BY day',
        'CREATE TABLE IF NOT EXISTS {db}.fill_marks (day Date, before UInt64) ENGINE = MergeTree ORDER BY day',
      ],
      perStoredDay: [
        "INSERT INTO {db}.fill_counts SELECT toDate('{day}'), count() FROM {db}.occurrences WHERE day = toDate('{day}') AND received_at < {before}",
        `INSERT INTO {db}.fill_marks SELECT toDate('{day}'), {before} + ${failing ? `throwIf(toDate('{day}') = toDate('${failingOn}'))` : '0'}`,
      ],
    });
    const client = createClient({ url: clickHouse.url });
    try {
      await expect(migrateClickHouse(client, store.database, [...clickHouseMigrations, fill(true)])).rejects.toThrow();
      expect(await migrateClickHouse(client, store.database, [...clickHouseMigrations, fill(false)])).toEqual(['2099-01-01-01-fill-test']);
      expect(await migrateClickHouse(client, store.database, [...clickHouseMigrations, fill(false)])).toEqual([]);
    } finally {
      await client.close();
    }
    const counts = await store.rows<{ day: string; n: string }>(`SELECT toString(day) AS day, n FROM ${store.database}.fill_counts ORDER BY day`);
    expect(counts.map((row) => ({ day: row.day, n: Number(row.n) }))).toEqual(days);
    const marks = await store.rows<{ day: string; before: string }>(`SELECT toString(day) AS day, toString(before) AS before FROM ${store.database}.fill_marks ORDER BY day`);
    expect(marks.map((row) => row.day)).toEqual(days.map((row) => row.day));
    expect(new Set(marks.map((row) => row.before)).size).toBe(1);
  });

  describeEachDatabase('the same rollups as the SQL store from the same data', (database) => {
    let app: App;
    let store: ClickHouseTelemetry;
    const data = generateDataSet(now, 1500);

    beforeAll(async () => {
      app = await buildTestApp(database(), { ROLLUP_TIER_INTERVAL_SECONDS: '3600' }, { clock });
      store = open(clickHouse.database());
      await store.migrate();
      // In several requests, as ingestion would send them.
      for (let offset = 0; offset < data.rows.length; offset += 400) {
        const chunk = data.rows.slice(offset, offset + 400);
        await Promise.all([app.telemetry.write(chunk), store.write(chunk)]);
      }
    }, 120_000);
    afterAll(async () => {
      await app?.close();
    });

    for (const { name, query } of rollupQueries) {
      it(name, async () => {
        const sql = await aggregateRollups({ db: app.database.db, dialect: app.database.dialect }, query);
        const columnar = await store.aggregate(query);
        expect(sql.length).toBeGreaterThan(0);
        expect(comparable(columnar)).toEqual(comparable(sql));
      });
    }

    it('answers the services, summary, trend, operations and database views as the SQL store does', async () => {
      const thresholds = apdexThresholdsFrom(app.database.db, 500);
      const reads = [
        { range: { fromMs: now - dayMs, toMs: now }, filters: {} },
        { range: { fromMs: now - 3 * dayMs, toMs: now + minuteMs }, filters: { environment: 'production' } },
        { range: { fromMs: now - 7 * hourMs + 12_345, toMs: now - hourMs }, filters: { service: 'orders' } },
      ];
      for (const read of reads) {
        const columnar = { ...read, rollups: store.rollups };
        expect(await servicesView({ ...columnar, lastSeen: store.lastSeen }, thresholds)).toEqual(await app.telemetry.services(read, thresholds));
        expect(await summaryView(columnar, thresholds)).toEqual(await app.telemetry.summary(read, thresholds));
        expect(await trendView(columnar, thresholds, '1h')).toEqual(await app.telemetry.trend(read, thresholds, '1h'));
        expect(await operationsView(columnar, thresholds, { limit: 5 })).toEqual(await app.telemetry.operations(read, thresholds, { limit: 5 }));
        // Total time is a sum of doubles: the stores add in different orders.
        const totals = (answer: Awaited<ReturnType<typeof databaseView>>) => ({ ...answer, statements: answer.statements.map((row) => ({ ...row, totalMs: double(row.totalMs) })) });
        expect(totals(await databaseView(columnar, 20))).toEqual(totals(await app.telemetry.database(read, 20)));
      }
      expect((await app.telemetry.summary(reads[0]!, thresholds)).count).toBeGreaterThan(0);
    });

    it('reads a trace from its own days: every span, earliest first', async () => {
      const expected = data.rows.filter((row) => row.trace_id === data.traceId).sort((a, b) => a.started_at - b.started_at);
      const spans = await store.traceSpans(data.traceId.toUpperCase(), 10_000);
      expect(spans.map((span) => span.span_id)).toEqual(expected.map((row) => row.span_id));
      expect(new Set(spans.map((span) => span.id)).size).toBe(spans.length);
      expect(await store.traceSpans('f'.repeat(32), 10)).toEqual([]);
    });

    it('serves a trace as the same waterfall as the SQL store (ids aside: each store assigns its own), and 404 for an unknown one', async () => {
      const withoutIds = (view: Awaited<ReturnType<typeof store.trace>>) => ({ ...view, spans: view.spans.map(({ id: _id, ...span }) => span) });
      const traceIds = [data.traceId, ...new Set(data.rows.slice(0, 40).map((row) => row.trace_id))];
      for (const traceId of traceIds) expect(withoutIds(await store.trace(traceId))).toEqual(withoutIds(await app.telemetry.trace(traceId)));
      await expect(store.trace('e'.repeat(32))).rejects.toMatchObject({ code: 'trace-not-found' });
    });
  });

  it('keeps every figure when several writers insert the same minute at once, before and after ClickHouse merges the parts', async () => {
    const database = clickHouse.database();
    const writers = [open(database), open(database), open(database)];
    await writers[0]!.migrate();
    const minute = now - 30 * minuteMs;
    const rows: NewOccurrence[] = generateDataSet(now, 900, 11).rows.map((row, i) => ({ ...row, service: 'shared', environment: 'production', operation: 'GET /', kind: 'server', parent_span_id: null, started_at: minute + (i % 60_000), status: i % 7 === 0 ? 'error' : 'ok' }));
    await Promise.all(rows.map((row, i) => writers[i % writers.length]!.write([row])));
    const query: ClickHouseRollupQuery = { table: 'operation_rollups', range: { fromMs: minute, toMs: minute + minuteMs }, groupBy: ['service'], withHistogram: true, withErrorHistogram: true };
    const expectFigures = async () => {
      const [group] = await writers[1]!.aggregate(query);
      expect(group).toMatchObject({ keys: { service: 'shared' }, count: rows.length, errorCount: rows.filter((row) => row.status === 'error').length });
      expect(LatencyHistogram.decode(group!.histogram!).count).toBe(rows.length);
      expect(group!.durationMaxMs).toBe(Math.max(...rows.map((row) => row.duration_ms)));
    };
    await expectFigures();
    await writers[2]!.optimizeForTests();
    await expectFigures();
  });

  it('acknowledges a write only once ClickHouse has it, and refuses when ClickHouse is away', async () => {
    const store = open(clickHouse.database());
    await store.migrate();
    const rows = generateDataSet(now, 50, 3).rows;
    await store.write(rows, 2);
    expect((await store.storage()).occurrences).toBe(rows.length);
    expect(await store.ingestionTotals(now - minuteMs, now + minuteMs)).toEqual({ accepted: rows.length, refused: 2 });

    const away = new ClickHouseTelemetry({ url: 'http://127.0.0.1:9', database: store.database, clock, maxRowsPerInsert: 10 });
    await expect(away.write(rows.slice(0, 5))).rejects.toThrow();
    await away.close();
  });

  it('drops whole days past the retention, rollups included, and keeps the rest', async () => {
    const store = open(clickHouse.database());
    await store.migrate();
    const data = generateDataSet(now, 800, 5);
    await store.write(data.rows);
    const cutoff = now - 2 * dayMs + 3 * hourMs;
    const lastDroppedDayEnd = Math.floor(cutoff / dayMs) * dayMs;
    const kept = data.rows.filter((row) => row.started_at >= lastDroppedDayEnd);
    expect(kept.length).toBeLessThan(data.rows.length);
    expect(await store.prune(cutoff)).toBe(data.rows.length - kept.length);
    expect((await store.storage()).occurrences).toBe(kept.length);
    const [all] = await store.aggregate({ table: 'operation_rollups', range: { fromMs: now - 7 * dayMs, toMs: now + minuteMs } });
    expect(all!.count).toBe(kept.length);
    expect(await store.prune(cutoff)).toBe(0);
  });
});

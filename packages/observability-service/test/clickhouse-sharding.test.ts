import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, type App } from '@playstack/server-kit';
import { clickHouseServerInstalled, createTestDatabase, TestClickHouseServer, type TestDatabase } from '@playstack/server-kit/testing';
import { databaseView } from '../src/query/database-view.js';
import { operationsView } from '../src/query/operations-view.js';
import type { RollupAggregate } from '../src/query/rollup-aggregate.js';
import { servicesView } from '../src/query/services-view.js';
import { summaryView } from '../src/query/summary-view.js';
import { trendView } from '../src/query/trend-view.js';
import type { ApdexThresholds } from '../src/service-settings/service-settings.js';
import type { ClickHouseRollupQuery } from '../src/telemetry/clickhouse/clickhouse-rollups.js';
import { ClickHouseLogStore } from '../src/telemetry/clickhouse/clickhouse-log-store.js';
import { ClickHouseTelemetry } from '../src/telemetry/clickhouse/clickhouse-telemetry.js';
import { clickHouseDependencies } from '../src/telemetry/clickhouse/clickhouse-dependencies.js';
import { defaultDependencySettleMs, resolveClickHouseDependencies } from '../src/telemetry/clickhouse/clickhouse-dependency-resolver.js';
import { dayMs, minuteMs } from '../src/time-units.js';
import { generateDataSet } from './support/generated-occurrences.js';
import { generateLogs } from './support/generated-logs.js';
import { envelope, minimalOccurrence } from './support/envelopes.js';
import { buildTestApp } from './support/test-app.js';

// Telemetry sharded over two ClickHouse servers (CLICKHOUSE_CLUSTER): two observability
// instances, one per shard, each writing part of the traffic to its own server; either answers
// every read as one server holding all of it does. Needs clickhouse-server here (the shards are
// this suite's own servers, configured as one cluster).

const now = Date.parse('2026-11-21T12:00:00.000Z');
const hourMs = 3_600_000;
const cluster = 'playstack_test';
const thresholds: ApdexThresholds = async (services) => new Map(services.map((service) => [service, 300]));

/** Sums of doubles depend on the order the shards' parts are added in. */
const double = (value: number) => Number(value.toPrecision(9));
function comparable(groups: readonly RollupAggregate[]) {
  return groups
    .map((group) => ({ ...group, durationSumMs: double(group.durationSumMs) }))
    .sort((a, b) => (JSON.stringify([a.bucketStartMs, a.keys]) < JSON.stringify([b.bucketStartMs, b.keys]) ? -1 : 1));
}

if (clickHouseServerInstalled()) describe('ClickHouse telemetry sharded over two servers', () => {
  const clock = new ManualClock(now);
  const data = generateDataSet(now, 1200, 21);
  // As many log records as spans: each request carries a share of both.
  const logs = generateLogs(now, 1200, 21);
  let shards: TestClickHouseServer[] = [];
  let one: ClickHouseTelemetry;
  let instances: ClickHouseTelemetry[] = [];

  beforeAll(async () => {
    shards = await TestClickHouseServer.startCluster(cluster, 2);
    const options = { database: 'telemetry', clock, maxRowsPerInsert: 10_000 };
    instances = shards.map((shard) => new ClickHouseTelemetry({ ...options, url: shard.url, cluster }));
    one = new ClickHouseTelemetry({ ...options, url: shards[0]!.url, database: 'unsharded' });
    for (const store of [...instances, one]) await store.migrate();
    // Each request goes to one instance, as a load balancer would send it; the single server gets them all.
    for (let offset = 0, request = 0; offset < data.rows.length; offset += 150, request++) {
      const batch = data.rows.slice(offset, offset + 150);
      const records = logs.records.slice(offset, offset + 150);
      await Promise.all([instances[request % 2]!.write(batch, request % 3, records), one.write(batch, request % 3, records)]);
    }
  }, 180_000);
  afterAll(async () => {
    for (const store of [...instances, one]) await store?.close();
    for (const shard of shards) await shard.dispose();
  });

  it('stores each batch on the shard of the instance that received it', async () => {
    const stored = await Promise.all(instances.map(async (store) => (await store.storage()).occurrences));
    expect(stored.every((count) => count > 0)).toBe(true);
    expect(stored[0]! + stored[1]!).toBe(data.rows.length);
  });

  it('answers the rollups, views, traces and ingestion totals through either instance as one server does', async () => {
    const range = { fromMs: now - 3 * dayMs, toMs: now + minuteMs };
    const queries: ClickHouseRollupQuery[] = [
      { table: 'operation_rollups', range, groupBy: ['service', 'environment', 'span_role'], withHistogram: true, withErrorHistogram: true },
      { table: 'operation_rollups', range, equals: { service: 'orders' }, groupBy: ['operation', 'kind'], bucketMs: hourMs, withHistogram: true },
      { table: 'tenant_rollups', range, groupBy: ['tenant_id', 'service', 'environment'], bucketMs: dayMs },
      { table: 'statement_rollups', range, groupBy: ['db_system', 'statement_hash'], withHistogram: true, extraColumns: ['statement', 'db_operation'] },
    ];
    const reads = [
      { range, filters: { environment: 'production' } },
      { range: { fromMs: now - 7 * hourMs + 12_345, toMs: now - hourMs }, filters: { service: 'orders' } },
    ];
    const withoutIds = (view: Awaited<ReturnType<ClickHouseTelemetry['trace']>>) => ({ ...view, spans: view.spans.map(({ id: _id, ...span }) => span) });
    const traceIds = [data.traceId, ...new Set(data.rows.slice(0, 12).map((row) => row.trace_id))];
    const answers = async (store: ClickHouseTelemetry) => {
      const columnar = (read: (typeof reads)[number]) => ({ ...read, rollups: store.rollups });
      return {
        rollups: await Promise.all(queries.map(async (query) => comparable(await store.aggregate(query)))),
        views: await Promise.all(
          reads.map(async (read) => ({
            services: await servicesView({ ...columnar(read), lastSeen: store.lastSeen }, thresholds),
            summary: await summaryView(columnar(read), thresholds),
            trend: await trendView(columnar(read), thresholds, '1h'),
            operations: await operationsView(columnar(read), thresholds, { limit: 5 }),
            database: (await databaseView(columnar(read), 20)).statements.map((row) => ({ ...row, totalMs: double(row.totalMs) })),
          })),
        ),
        traces: await Promise.all(traceIds.map(async (traceId) => withoutIds(await store.trace(traceId)))),
        ingested: await store.ingestionTotals(now - minuteMs, now + minuteMs),
      };
    };
    const expected = await answers(one);
    expect(expected.rollups[0]!.length).toBeGreaterThan(0);
    expect(expected.ingested.accepted).toBe(data.rows.length + logs.records.length);
    for (const store of instances) expect(await answers(store)).toEqual(expected);
    await expect(instances[1]!.trace('e'.repeat(32))).rejects.toMatchObject({ code: 'trace-not-found' });
  });

  it('answers dependencies through either instance as one server does, joined from the raw spans and once resolved, with a trace\'s spans on both shards', async () => {
    // A gateway request whose orders child arrived through the other instance: an edge found only by looking on both shards.
    const traceId = 'f1'.repeat(16);
    const parent = { ...data.rows[0]!, trace_id: traceId, span_id: 'a1'.repeat(8), parent_span_id: null, service: 'gateway', kind: 'server', peer_service: null, peer_address: null, db_system: null, started_at: now - 3 * hourMs };
    const child = { ...parent, span_id: 'b1'.repeat(8), parent_span_id: parent.span_id, service: 'orders', started_at: now - 3 * hourMs + 20 };
    await Promise.all([instances[0]!.write([parent]), instances[1]!.write([child]), one.write([parent, child])]);
    const reads = [
      { range: { fromMs: now - 3 * dayMs, toMs: now + minuteMs }, filters: {} },
      { range: { fromMs: now - 7 * hourMs + 12_345, toMs: now - hourMs }, filters: { service: 'orders' } },
    ];
    const answers = (store: ClickHouseTelemetry) => Promise.all(reads.map((read) => clickHouseDependencies(store, read)));
    const expected = await answers(one);
    expect(expected[0]!.edges.some((edge) => edge.source === 'gateway' && edge.target === 'orders')).toBe(true);
    for (const store of instances) expect(await answers(store)).toEqual(expected);
    clock.advance(defaultDependencySettleMs);
    try {
      expect((await resolveClickHouseDependencies(one, clock.now())).minutes).toBeGreaterThan(0);
      // Both instances at once (each reads every shard and writes to its own, so an edge both resolved is there twice, read once).
      const resolved = await Promise.all(instances.map((store) => resolveClickHouseDependencies(store, clock.now())));
      expect(resolved.some((resolution) => resolution.minutes > 0)).toBe(true);
      expect(await answers(one)).toEqual(expected);
      for (const store of instances) expect(await answers(store)).toEqual(expected);
    } finally {
      clock.set(now);
    }
  });

  it('answers log searches, trends, trace records and tenant counts through either instance as one server does', async () => {
    const range = { fromMs: now - 3 * dayMs, toMs: now + minuteMs };
    const partRange = { fromMs: now - 30 * hourMs + 12_345, toMs: now - 5 * hourMs };
    // Ids differ (each writer has its own uids), and records of one millisecond written through two instances sort by their writers' uids: compared by content, in time order.
    const contents = (records: ReadonlyArray<{ id: number | string; time_ms: number }>) =>
      records.map(({ id: _id, ...record }) => record).sort((a, b) => a.time_ms - b.time_ms || (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
    const byKey = <T>(rows: T[]) => rows.map((row) => JSON.stringify(row)).sort();
    const answers = async (store: ClickHouseTelemetry) => {
      const logStore = new ClickHouseLogStore(store);
      return {
        searches: await Promise.all(
          [
            { range, filters: {}, limit: 2_000 },
            { range: partRange, filters: { service: 'orders' }, severityMin: 13, limit: 2_000 },
            { range, filters: {}, terms: ['timeout'], limit: 2_000 },
            { range, filters: {}, attributes: [['region', 'eu']] as Array<[string, string]>, limit: 2_000 },
          ].map(async (request) => contents(await logStore.search(request))),
        ),
        trends: await Promise.all(
          [
            { range, filters: {} },
            { range: partRange, filters: { environment: 'staging' }, severityMin: 9 },
            { range, filters: {}, terms: ['lock'] },
          ].map(async (selection) => byKey(await logStore.trend(selection, hourMs))),
        ),
        traces: await Promise.all(logs.traceIds.map(async (traceId) => contents(await logStore.traceLogs(traceId, 1_000)))),
        tenants: byKey(await logStore.tenantCounts({ range, filters: {}, bucketMs: dayMs })),
      };
    };
    const expected = await answers(one);
    expect(expected.searches[0]!.length).toBe(logs.records.length);
    expect(expected.traces[0]!.length).toBeGreaterThan(0);
    for (const store of instances) expect(await answers(store)).toEqual(expected);
  });

  it('is what CLICKHOUSE_CLUSTER sets up in the service: each instance stores what it receives on its own shard and answers over both', async () => {
    const key = 'sharded-ingest-key-0123456789';
    const databases: TestDatabase[] = [];
    const apps: App[] = [];
    try {
      for (const shard of shards) {
        const database = await createTestDatabase('sqlite');
        databases.push(database);
        apps.push(await buildTestApp(database, { SERVICE_API_KEY: key, CLICKHOUSE_URL: shard.url, CLICKHOUSE_DATABASE: 'service_sharded', CLICKHOUSE_CLUSTER: cluster }, { clock }));
      }
      const sent = [7, 5];
      for (const [i, app] of apps.entries()) {
        const occurrences = Array.from({ length: sent[i]! }, (_, n) => minimalOccurrence(new Date(now - 60_000 * (n + 1)).toISOString(), { operation: `op-${i}` }));
        const response = await app.inject({
          method: 'POST',
          url: '/api/v1/ingest',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          payload: JSON.stringify(envelope(occurrences, { service: 'sharded-api', environment: 'production' })),
        });
        expect(response.statusCode).toBe(202);
      }
      // Each shard holds its own instance's spans only.
      for (const [i, shard] of shards.entries()) {
        const counted = await fetch(`${shard.url}/?query=${encodeURIComponent('SELECT count() FROM service_sharded_shard.occurrences FORMAT TSV')}`);
        expect(Number((await counted.text()).trim())).toBe(sent[i]);
      }
      const read = { range: { fromMs: now - dayMs, toMs: now + minuteMs }, filters: { service: 'sharded-api' } };
      for (const app of apps) {
        const summary = await app.telemetry.summary(read, thresholds);
        expect(summary.count).toBe(12);
      }
    } finally {
      for (const app of apps) await app.close();
      for (const database of databases) await database.dispose();
    }
  });
});

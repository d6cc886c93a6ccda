// The ClickHouse store's reads over a large data set seeded inside ClickHouse (support/clickhouse-seed.ts:
// INSERT ... SELECT over numbers(), through the same materialized views as ingestion): p50/p95 of
// the read views bench/queries.ts measures on the SQL stores (services, summary, trend, operations,
// database, dependencies, usage, the occurrence page, the error groups list) over the last 24 h and
// 7 days, and of a trace by id, each beside its ceiling measured in the same run: `SELECT 1` over
// the same HTTP client (the round trip every read pays). The reads run as the API runs them, on
// the store (ClickHouseTelemetryStore), without HTTP. Not here: log searches (no log records are
// seeded) and searches with row filters (bounded by OCCURRENCE_SEARCH_WINDOW, not by the size).
//
//   npx tsx --conditions=source bench/clickhouse-queries.ts
//
// BENCH_OCCURRENCES (default 100,000,000) spans over 7 days ending now; BENCH_ITERATIONS (default
// 30) reads per case; BENCH_SKIP=<text>[|<text>...] leaves out the cases whose label contains one
// (e.g. '7 days errors'). Before the reads, the dependency edges of every minute but the last two
// are resolved (as the service's resolver keeps them), the time it took printed: the last two
// minutes are joined from the raw spans, as in a live service. CLICKHOUSE_URL uses a running server (and keeps the seeded database
// BENCH_CLICKHOUSE_DATABASE, default bench_queries, for the next run); otherwise a private one.
import { loadavg } from 'node:os';
import { createClient } from '@clickhouse/client';
import { systemClock } from '@playstack/server-kit';
import { TestClickHouseServer } from '@playstack/server-kit/testing';
import type { ApdexThresholds } from '../packages/observability-service/src/service-settings/service-settings.js';
import { ClickHouseTelemetryStore } from '../packages/observability-service/src/telemetry/clickhouse/clickhouse-telemetry-store.js';
import { dayMs } from '../packages/observability-service/src/time-units.js';
import { resolveClickHouseDependencies } from '../packages/observability-service/src/telemetry/clickhouse/clickhouse-dependency-resolver.js';
import { seedClickHouse, seededTraceIdSql } from './support/clickhouse-seed.js';

const total = Number(process.env.BENCH_OCCURRENCES ?? 100_000_000);
const iterations = Number(process.env.BENCH_ITERATIONS ?? 30);
const database = process.env.BENCH_CLICKHOUSE_DATABASE ?? 'bench_queries';
const skipped = process.env.BENCH_SKIP?.split('|') ?? [];
const thresholds: ApdexThresholds = async (services) => new Map(services.map((service) => [service, 300]));

function percentile(sorted: readonly number[], q: number): number {
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!;
}

async function timed(read: () => Promise<unknown>): Promise<{ p50: number; p95: number }> {
  for (let i = 0; i < 2; i++) await read();
  const times: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const started = performance.now();
    await read();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 0.5), p95: percentile(times, 0.95) };
}

async function main(): Promise<void> {
  const server = process.env.CLICKHOUSE_URL ? undefined : await TestClickHouseServer.start();
  const url = process.env.CLICKHOUSE_URL ?? server!.url;
  // Seeding statements run for minutes: progress headers keep the connection alive meanwhile.
  const client = createClient({ url, request_timeout: 3_600_000, clickhouse_settings: { send_progress_in_http_headers: 1, http_headers_progress_interval_ms: '10000' } });
  const telemetry = new ClickHouseTelemetryStore({ url, database, clock: systemClock, maxRowsPerInsert: 100_000 });
  const store = telemetry.clickHouse;
  try {
    const migrating = performance.now();
    const applied = await store.migrate();
    if (applied.length > 0) console.log(`applied ${applied.join(', ')} in ${((performance.now() - migrating) / 1000).toFixed(1)} s`);
    const nowMs = Date.now();
    let stored = (await store.storage()).occurrences;
    if (stored !== total) {
      const tables = await (await client.query({ query: `SELECT name FROM system.tables WHERE database = '${database}' AND engine LIKE '%MergeTree' AND name != 'schema_migrations'`, format: 'JSONEachRow' })).json<{ name: string }>();
      for (const { name } of tables) await client.command({ query: `TRUNCATE TABLE ${database}.${name}` });
      const started = performance.now();
      console.log(`seeding ${total.toLocaleString('en-US')} spans, load ${loadavg()[0]!.toFixed(1)}`);
      await seedClickHouse(client, database, nowMs - 7 * dayMs, nowMs, total, (seeded) => console.log(`seeded ${seeded.toLocaleString('en-US')} spans (${((performance.now() - started) / 1000).toFixed(0)} s, load ${loadavg()[0]!.toFixed(1)})`));
      stored = (await store.storage()).occurrences;
      // Bytes per span after merges: what the tables settle at (ClickHouse merges in the background anyway).
      const optimizing = performance.now();
      for (const { name } of tables) await client.command({ query: `OPTIMIZE TABLE ${database}.${name} FINAL` });
      console.log(`merged every table (OPTIMIZE ... FINAL) in ${((performance.now() - optimizing) / 1000).toFixed(0)} s`);
    }
    const perTable = await (
      await client.query({ query: `SELECT table, sum(bytes_on_disk) AS bytes, count() AS parts FROM system.parts WHERE database = '${database}' AND active GROUP BY table ORDER BY bytes DESC`, format: 'JSONEachRow' })
    ).json<{ table: string; bytes: string; parts: string }>();
    const { bytesOnDisk } = await store.storage();
    console.log(`${stored.toLocaleString('en-US')} spans over 7 days, ${(bytesOnDisk / stored).toFixed(1)} bytes per span on disk (every table); ${iterations} reads per case`);
    console.log(`bytes per span by table: ${perTable.map((row) => `${row.table} ${(Number(row.bytes) / stored).toFixed(1)} (${row.parts} parts)`).join(', ')}`);
    const ceiling = await timed(async () => (await client.query({ query: 'SELECT 1', format: 'JSONEachRow' })).json());
    console.log(`ceiling (SELECT 1 round trip): p50 ${ceiling.p50.toFixed(1)} ms, p95 ${ceiling.p95.toFixed(1)} ms`);
    const latest = await (await client.query({ query: `SELECT max(started_at) AS at FROM ${database}.occurrences`, format: 'JSONEachRow' })).json<{ at: number }>();
    const endMs = Math.ceil(Number(latest[0]!.at) / 60_000) * 60_000;
    // Pass after pass, as the service's upkeep would over its first minutes on this store.
    const resolving = performance.now();
    const resolved = { minutes: 0, buckets: 0, passes: 0 };
    for (;;) {
      const pass = await resolveClickHouseDependencies(store, endMs);
      if (pass.minutes === 0 && pass.buckets === 0) break;
      resolved.minutes += pass.minutes;
      resolved.buckets += pass.buckets;
      resolved.passes += 1;
    }
    console.log(`resolved the dependency edges of ${resolved.minutes.toLocaleString('en-US')} minutes and ${resolved.buckets} coarser buckets in ${resolved.passes} passes, ${((performance.now() - resolving) / 1000).toFixed(1)} s`);
    const traceIds = (await (await client.query({ query: `SELECT ${seededTraceIdSql('toUInt64(number * 7919)')} AS id FROM system.numbers LIMIT ${iterations + 2}`, format: 'JSONEachRow' })).json<{ id: string }>()).map((row) => row.id);
    for (const [label, spanMs, targetMs] of [['24 h', dayMs, 200], ['7 days', 7 * dayMs, 500]] as const) {
      const read = { range: { fromMs: endMs - spanMs, toMs: endMs }, filters: {} };
      const errors = { from: new Date(endMs - spanMs).toISOString(), to: new Date(endMs).toISOString() };
      const cases: Array<[string, () => Promise<unknown>]> = [
        ['services', () => telemetry.services(read, thresholds)],
        ['summary', () => telemetry.summary(read, thresholds)],
        ['trend', () => telemetry.trend(read, thresholds)],
        ['operations', () => telemetry.operations(read, thresholds, { limit: 20 })],
        ['operations of one service', () => telemetry.operations({ ...read, filters: { service: 'service-07' } }, thresholds, { limit: 20 })],
        ['database', () => telemetry.database(read, 20)],
        ['dependencies', () => telemetry.dependencies(read)],
        ['usage', () => telemetry.usage(read, undefined)],
        ['occurrence page (50)', () => telemetry.occurrences(read, { limit: 50, offset: 0, window: 50_000 })],
        ['errors list', () => telemetry.errorGroups(endMs, errors)],
        ['errors list, by count', () => telemetry.errorGroups(endMs, { ...errors, sort: 'count' })],
      ];
      for (const [name, read] of cases.filter(([name]) => !skipped.some((part) => `${label} ${name}`.includes(part)))) {
        const figures = await timed(read).catch((error: Error) => error);
        if (figures instanceof Error) {
          console.log(`${label.padEnd(6)} ${name.padEnd(26)} failed: ${figures.message}`);
          continue;
        }
        console.log(`${label.padEnd(6)} ${name.padEnd(26)} p50 ${figures.p50.toFixed(1).padStart(7)} ms, p95 ${figures.p95.toFixed(1).padStart(7)} ms (${(figures.p95 / ceiling.p95).toFixed(1)}x the ceiling's p95; target < ${targetMs} ms)`);
      }
    }
    let next = 0;
    const trace = await timed(() => store.trace(traceIds[next++ % traceIds.length]!));
    console.log(`trace by id                       p50 ${trace.p50.toFixed(1).padStart(7)} ms, p95 ${trace.p95.toFixed(1).padStart(7)} ms (target < 50 ms); load average ${loadavg()[0]!.toFixed(1)}`);
  } finally {
    await telemetry.close();
    await client.close();
    await server?.dispose();
  }
}

await main();

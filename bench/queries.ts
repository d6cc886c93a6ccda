// The observability read API over a large data set: p50/p95 latency of each dashboard query,
// next to the ceiling of a bare Fastify route answering the same body, on each telemetry store
// in one run, the same data set in each: SQLite, PostgreSQL (BENCH_DATABASE_URL, or DATABASE_URL)
// and ClickHouse (CLICKHOUSE_URL, or a private clickhouse-server when installed), then one table
// of every endpoint's p95 on each.
//
//   npx tsx --conditions=source bench/queries.ts
//
// BENCH_STORES=sqlite,postgres,clickhouse picks the stores (default: each one available);
// BENCH_OCCURRENCES (default 10,000,000) sets the size; BENCH_DATA_DIR keeps the generated
// SQLite database between runs (generation takes minutes at full size); BENCH_ITERATIONS sets
// the requests per endpoint (default 60); BENCH_ONLY=<text>[|<text>...] only the cases whose name contains one of them.
// BENCH_PG_ANALYZE=0 skips the ANALYZE after PostgreSQL's load.
// OCCURRENCE_SEARCH_WINDOW is passed to the service (the rows an occurrence search with row
// filters checks at most).
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Fastify from 'fastify';
import { sql } from 'kysely';
import type { App, ManualClock } from '@playstack/server-kit';
import { clickHouseServerInstalled, TestClickHouseServer } from '@playstack/server-kit/testing';
import { days, defaultShape, end, generate, generateThroughStore, occurrencesTotal, openDataSetApp, serviceCount, services, start, tenantCount, traceIdOf, tracesOf } from './support/occurrence-data-set.js';
import { compactTiers } from '../packages/observability-service/src/query/tier-compactor.js';
import { telemetryDatabase } from '../packages/observability-service/src/storage/telemetry-database.js';
import { dropPostgresSchema } from './support/scratch.js';
import { asBrowser, setUpFirstAdmin } from '../packages/observability-service/test/support/browser-session.js';

const iterations = Number(process.env.BENCH_ITERATIONS ?? 60);
const keepDir = process.env.BENCH_DATA_DIR;
const dataDir = keepDir ?? mkdtempSync(join(tmpdir(), 'bench-queries-'));
const reuse = keepDir !== undefined && existsSync(join(keepDir, 'observability.sqlite'));
mkdirSync(dataDir, { recursive: true });
const databaseUrl = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL;
const available = ['sqlite', ...(databaseUrl ? ['postgres'] : []), ...(process.env.CLICKHOUSE_URL || clickHouseServerInstalled() ? ['clickhouse'] : [])];
const stores = process.env.BENCH_STORES?.split(',') ?? available;
for (const store of stores) if (!available.includes(store)) throw new Error(`BENCH_STORES names ${store}, which is not available here (${available.join(', ')})`);

function percentile(sorted: number[], q: number): number {
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!;
}

/**
 * Wall-clock latency, and the CPU time this process spent per request: on a machine shared with
 * other work the wall clock includes waiting for a core, the CPU time does not.
 */
async function measure(send: () => Promise<{ statusCode: number; body: string }>): Promise<{ p50: number; p95: number; cpuP50: number; cpuP95: number; body: string }> {
  let body = '';
  for (let i = 0; i < 3; i += 1) body = (await send()).body;
  const times: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < iterations; i += 1) {
    const began = performance.now();
    const cpuBefore = process.cpuUsage();
    const response = await send();
    const used = process.cpuUsage(cpuBefore);
    times.push(performance.now() - began);
    cpu.push((used.user + used.system) / 1000);
    if (response.statusCode !== 200) throw new Error(`status ${response.statusCode}: ${response.body.slice(0, 200)}`);
  }
  times.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  return { p50: percentile(times, 0.5), p95: percentile(times, 0.95), cpuP50: percentile(cpu, 0.5), cpuP95: percentile(cpu, 0.95), body };
}

type Result = { p50: number; p95: number; cpuP50: number; cpuP95: number };

/** Every dashboard query on one store's app, each beside its ceiling; prints them as it goes. */
async function measureStore(label: string, app: App, clock: ManualClock): Promise<Map<string, Result>> {
  if (label !== 'clickhouse') {
    const compacting = performance.now();
    await compactTiers(telemetryDatabase(app.database));
    console.log(`brought the rollup tiers up to date in ${((performance.now() - compacting) / 1000).toFixed(1)} s`);
  }
  // What autovacuum does within a minute of such a load (BENCH_PG_ANALYZE=0 leaves the tables
  // without statistics, as a server with autovacuum off keeps them).
  if (label === 'postgres' && process.env.BENCH_PG_ANALYZE !== '0') {
    const analyzing = performance.now();
    await sql`analyze`.execute(app.database.db);
    console.log(`analyzed the tables in ${((performance.now() - analyzing) / 1000).toFixed(1)} s`);
  }
  const session = await setUpFirstAdmin(app).catch(async () => {
    // A kept data set already has its admin: sign in as them.
    const { signIn, firstAdmin } = await import('../packages/observability-service/test/support/browser-session.js');
    return signIn(app, firstAdmin.email, firstAdmin.password);
  });

  // Dashboards ask for "the last 24 hours" at any moment, not on the hour: the range's ends fall
  // mid-hour and mid-minute, as they would in use.
  clock.set(end - 22 * 60_000 - 20_500);
  const iso = (ms: number) => new Date(ms).toISOString();
  const traceId = traceIdOf(defaultShape, tracesOf(defaultShape) - 1000);
  const firstErrorsPage = await asBrowser(app, session, { method: 'GET', url: '/api/v1/errors' });
  const errorsCursor: string | null = firstErrorsPage.json().nextCursor;
  const cases: Array<[string, string]> = [
    ['services (24 h)', '/api/v1/services'],
    ['summary (24 h)', '/api/v1/summary'],
    ['trend (24 h)', '/api/v1/trend'],
    ['trend (7 d)', `/api/v1/trend?from=${iso(start)}`],
    ['operations (24 h)', '/api/v1/operations'],
    ['operations (24 h, 1 svc)', `/api/v1/operations?service=${services[3]}`],
    ['database (24 h)', '/api/v1/database'],
    ['dependencies (24 h)', '/api/v1/dependencies'],
    ['usage (24 h)', '/api/v1/usage'],
    ['trace by id', `/api/v1/traces/${traceId}`],
    ['occurrence page (24 h, 50)', '/api/v1/occurrences'],
    ['errors list (24 h)', '/api/v1/errors'],
    ['errors list (7 d, by count)', `/api/v1/errors?from=${iso(start)}&sort=count`],
    // A data set whose groups fit on one page has no page 2 (nextCursor null).
    ...(errorsCursor ? ([['errors list (24 h, page 2)', `/api/v1/errors?cursor=${errorsCursor}`]] as Array<[string, string]>) : []),
    // Row filters, each checked in the search window (the newest OCCURRENCE_SEARCH_WINDOW rows).
    ['occ. attr filter (24 h)', '/api/v1/occurrences?attr.region=eu-west'],
    ['occ. attr, rare (24 h)', '/api/v1/occurrences?attr.customer.id=customer-42'],
    ['occ. attr + service (24 h)', `/api/v1/occurrences?service=${services[3]}&attr.plan=enterprise`],
    ['occ. duration filter (24 h)', '/api/v1/occurrences?minDurationMs=100'],
    ['occ. 5xx + duration (24 h)', '/api/v1/occurrences?httpStatusClass=5xx&minDurationMs=50&maxDurationMs=500'],
    ['duration chart (24 h)', '/api/v1/occurrences/durations'],
  ];
  const ceilingApp = Fastify();
  const bodies = new Map<string, string>();
  ceilingApp.get('/ceiling/:name', async (request, reply) => reply.type('application/json').send(bodies.get((request.params as { name: string }).name)));
  await ceilingApp.ready();

  console.log(`\n${occurrencesTotal.toLocaleString('en')} occurrences, ${days} days, ${serviceCount} services, ${tenantCount} tenants, ${label}; ${iterations} requests each (in-process inject)`);
  console.log('endpoint                      p50 ms   p95 ms  cpu p50  cpu p95   ceiling p95 ms   ratio p95');
  const results = new Map<string, Result>();
  // BENCH_ONLY=<text>[|<text>...] measures only the cases whose name contains one of them (a re-run of some parts on a kept data set).
  const only = process.env.BENCH_ONLY?.split('|');
  try {
    for (const [name, url] of cases.filter(([name]) => only === undefined || only.some((part) => name.includes(part)))) {
      const result = await measure(() => asBrowser(app, session, { method: 'GET', url }));
      bodies.set(String(results.size), result.body);
      const ceiling = await measure(() => ceilingApp.inject({ method: 'GET', url: `/ceiling/${results.size}` }));
      results.set(name, result);
      console.log(
        `${name.padEnd(28)} ${result.p50.toFixed(2).padStart(7)} ${result.p95.toFixed(2).padStart(8)} ${result.cpuP50.toFixed(2).padStart(8)} ${result.cpuP95.toFixed(2).padStart(8)} ${ceiling.p95.toFixed(3).padStart(16)} ${(result.p95 / ceiling.p95).toFixed(0).padStart(11)}x`,
      );
    }
  } finally {
    await ceilingApp.close();
  }
  summarize(results);
  return results;
}

function summarize(results: Map<string, Result>): void {
  const errorLists = [...results.entries()].filter(([name]) => name.startsWith('errors list')).map(([, r]) => r);
  if (errorLists.length > 0) {
    console.log(`\nerrors list, slowest p95: ${Math.max(...errorLists.map((r) => r.p95)).toFixed(2)} ms wall, ${Math.max(...errorLists.map((r) => r.cpuP95)).toFixed(2)} ms CPU (target < 50 ms)`);
  }
  const day = results.get('trend (24 h)');
  const week = results.get('trend (7 d)');
  // Searches with row filters have their own target (< 200 ms for attribute filters).
  const searches = [...results.entries()].filter(([name]) => name.startsWith('occ. ') || name.startsWith('duration chart'));
  const dashboard = [...results.entries()].filter(([name]) => !searches.some(([search]) => search === name)).map(([, r]) => r);
  const load = `load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`;
  if (day && week) console.log(`\n7-day trend / 24-hour trend (p95): ${(week.p95 / day.p95).toFixed(2)}, CPU p95: ${(week.cpuP95 / day.cpuP95).toFixed(2)} (target <= 2)`);
  if (dashboard.length > 0) {
    const slowest = Math.max(...dashboard.map((r) => r.p95));
    const slowestCpu = Math.max(...dashboard.map((r) => r.cpuP95));
    console.log(`slowest p95: ${slowest.toFixed(2)} ms wall, ${slowestCpu.toFixed(2)} ms CPU (target < 50 ms); ${load}`);
  }
  const attributeSearches = searches.filter(([name]) => name.includes('attr'));
  const otherSearches = searches.filter(([name]) => !name.includes('attr'));
  if (attributeSearches.length > 0) {
    console.log(
      `attribute filters, slowest p95: ${Math.max(...attributeSearches.map(([, r]) => r.p95)).toFixed(2)} ms wall, ${Math.max(...attributeSearches.map(([, r]) => r.cpuP95)).toFixed(2)} ms CPU (target < 200 ms); ${load}`,
    );
  }
  if (otherSearches.length > 0) console.log(`other row filters, slowest p95: ${Math.max(...otherSearches.map(([, r]) => r.p95)).toFixed(2)} ms wall, ${Math.max(...otherSearches.map(([, r]) => r.cpuP95)).toFixed(2)} ms CPU`);
}

/** One store's app over the data set: SQLite bulk-loaded (or kept), PostgreSQL and ClickHouse written through the service. */
async function openStore(store: string): Promise<{ app: App; clock: ManualClock; dispose: () => Promise<void> }> {
  if (store === 'sqlite') {
    if (reuse) console.log(`reusing the data set in ${dataDir}`);
    const { app, clock } = await openDataSetApp(dataDir, { reuse, databaseUrl: undefined, env: searchWindow });
    return { app, clock, dispose: () => app.close() };
  }
  // The service database of users and settings (and the telemetry, on PostgreSQL): a directory of its own.
  const ownDir = mkdtempSync(join(tmpdir(), `bench-queries-${store}-`));
  if (store === 'postgres') {
    // A schema of its own each run, dropped at the end: a second run must not add to the first's rows.
    const schema = `bench_queries_${process.pid}`;
    const { app, clock } = await openDataSetApp(ownDir, { reuse: false, databaseUrl, env: { ...searchWindow, DATABASE_SCHEMA: schema } });
    await generate(app);
    return {
      app,
      clock,
      dispose: async () => {
        await app.close();
        await dropPostgresSchema(databaseUrl!, schema);
        rmSync(ownDir, { recursive: true, force: true });
      },
    };
  }
  const server = process.env.CLICKHOUSE_URL ? undefined : await TestClickHouseServer.start();
  const url = process.env.CLICKHOUSE_URL ?? server!.url;
  // A database of its own each run: the data set is written again (ClickHouse takes it in a few minutes).
  const database = `bench_queries_${process.pid}`;
  const { app, clock } = await openDataSetApp(ownDir, { reuse: false, databaseUrl: undefined, clickHouse: { url, database }, env: searchWindow });
  await generateThroughStore(app, clock);
  return {
    app,
    clock,
    dispose: async () => {
      await fetch(`${url}/?query=${encodeURIComponent(`DROP DATABASE IF EXISTS ${database}`)}`, { method: 'POST' }).catch(() => undefined);
      await app.close();
      await server?.dispose();
      rmSync(ownDir, { recursive: true, force: true });
    },
  };
}

const searchWindow: Record<string, string> = process.env.OCCURRENCE_SEARCH_WINDOW ? { OCCURRENCE_SEARCH_WINDOW: process.env.OCCURRENCE_SEARCH_WINDOW } : {};
const measured = new Map<string, Map<string, Result>>();
try {
  for (const store of stores) {
    const { app, clock, dispose } = await openStore(store);
    try {
      measured.set(store, await measureStore(store, app, clock));
    } finally {
      await dispose();
    }
  }
  if (measured.size > 1) {
    const names = [...new Set([...measured.values()].flatMap((results) => [...results.keys()]))];
    console.log(`\np95 ms (wall) of each endpoint on each store, the same ${occurrencesTotal.toLocaleString('en')} occurrences:`);
    console.log(`${'endpoint'.padEnd(28)} ${[...measured.keys()].map((store) => store.padStart(10)).join(' ')}`);
    for (const name of names) console.log(`${name.padEnd(28)} ${[...measured.values()].map((results) => (results.get(name)?.p95.toFixed(2) ?? '-').padStart(10)).join(' ')}`);
  }
} finally {
  if (!keepDir) rmSync(dataDir, { recursive: true, force: true });
}

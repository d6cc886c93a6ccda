// The dashboard over the queries bench's data set (10,000,000 occurrences by default): for each
// page, the time from navigation until its last API answer has arrived in headless Chromium
// (target: under 1 s), next to a ceiling: the same build served with the same API bodies
// replayed by a bare Fastify route.
//
//   npx tsx --conditions=source bench/dashboard.ts
//
// Screenshots of the pages over that data land in test-output/dashboard/bench/.
// BENCH_DATA_DIR (default: <tmp>/playstack-bench-queries) holds the SQLite data set; when it has
// none, bench/queries.ts generates it there first (minutes at full size; BENCH_OCCURRENCES sets
// the size). BENCH_RUNS sets the loads per page (default 5).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import type { Page } from 'playwright-core';
import { buildApp, loadObservabilityConfig } from '@playstack/observability-service';
import { launchChromium } from '@playstack/server-kit/testing';
import { dashboardPlugin } from '../packages/observability-service/src/web/dashboard-plugin.js';
import { firstAdminSession } from '../packages/observability-service/test/support/browser-session.js';
import { buildDashboard, screenshot } from '../packages/observability-web/test/support/dashboard-harness.js';

const dataDir = process.env.BENCH_DATA_DIR ?? join(tmpdir(), 'playstack-bench-queries');
const runs = Number(process.env.BENCH_RUNS ?? 5);
const targetMs = 1000;
const dayMs = 86_400_000;

if (!existsSync(join(dataDir, 'observability.sqlite'))) {
  console.log(`no data set in ${dataDir}: generating it with bench/queries.ts`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--conditions=source', fileURLToPath(new URL('queries.ts', import.meta.url))], {
    stdio: 'inherit',
    env: { ...process.env, BENCH_DATA_DIR: dataDir, BENCH_ITERATIONS: '1' },
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const build = await buildDashboard();
const app = await buildApp(loadObservabilityConfig({ LOG_LEVEL: 'silent', DATA_DIR: dataDir, OBSERVABILITY_WEB_DIR: build.dir }));
await app.listen({ port: 0, host: '127.0.0.1' });
const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;

// The queries bench created this admin; on a data set without one, this creates them.
const { cookie } = await firstAdminSession(app);

const bounds = await app.database.db
  .selectFrom('occurrences' as never)
  .select((eb) => [eb.fn.min('started_at' as never).as('first'), eb.fn.max('started_at' as never).as('last')])
  .executeTakeFirstOrThrow();
const totalRows = Number(((await app.database.db.selectFrom('occurrences' as never).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()) as { n: number }).n);
const endMs = Number((bounds as { last: number }).last) + 1;
const firstMs = Number((bounds as { first: number }).first);
const range = (spanMs: number) => `from=${new Date(Math.max(firstMs, endMs - spanMs)).toISOString()}&to=${new Date(endMs).toISOString()}`;
const day = range(dayMs);
const week = range(7 * dayMs);

const sample = (await app.inject({ method: 'GET', url: `/api/v1/occurrences?${day}&limit=1`, cookies: { obs_session: cookie } })).json() as { items: Array<{ id: string; traceId: string; service: string }> };
const occurrence = sample.items[0];
if (!occurrence) throw new Error('the data set has no occurrence in its last day');
const service = encodeURIComponent(occurrence.service);

const pages: Array<[string, string]> = [
  ['services (24 h)', `/services?${day}`],
  ['services (7 d)', `/services?${week}`],
  ['service overview (24 h)', `/services/${service}?${day}`],
  ['service overview (7 d)', `/services/${service}?${week}`],
  ['service database (24 h)', `/services/${service}/database?${day}`],
  ['service dependencies (24 h)', `/services/${service}/dependencies?${day}`],
  ['occurrences (24 h)', `/occurrences?${day}`],
  ['occurrences status=error (24 h)', `/occurrences?status=error&${day}`],
  ['occurrences page 100 (24 h)', `/occurrences?offset=5000&${day}`],
  ['occurrence', `/occurrences/${occurrence.id}?${day}`],
  ['trace', `/traces/${occurrence.traceId}?${day}`],
  ['database (24 h)', `/database?${day}`],
  ['dependencies (24 h)', `/dependencies?${day}`],
  ['usage (24 h)', `/usage?${day}`],
  ['usage (7 d)', `/usage?${week}`],
  ['health', '/health'],
];

interface Load {
  /** Navigation start to the end of the page's last API answer. */
  dataMs: number;
  calls: number;
  slowestCallMs: number;
}

/** Loads `path` until the network is idle; reads the API calls' timings from the page itself. */
async function load(page: Page, origin: string, path: string): Promise<Load> {
  await page.goto(`${origin}${path}`, { waitUntil: 'networkidle' });
  const entries = await page.evaluate(() =>
    performance
      .getEntriesByType('resource')
      .filter((entry) => new URL(entry.name).pathname.startsWith('/api/'))
      .map((entry) => ({ start: entry.startTime, end: (entry as unknown as { responseEnd: number }).responseEnd })),
  );
  if (entries.length === 0) throw new Error(`${path} made no API call`);
  return { dataMs: Math.max(...entries.map((entry) => entry.end)), calls: entries.length, slowestCallMs: Math.max(...entries.map((entry) => entry.end - entry.start)) };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;

const browser = await launchChromium();
const ceiling = Fastify();
try {
  const context = await browser.newContext({ viewport: { width: 1360, height: 900 } });
  await context.addCookies([{ name: 'obs_session', value: cookie, url: baseUrl }]);
  const page = await context.newPage();
  const bodies = new Map<string, { status: number; type: string; body: Buffer }>();
  page.on('response', async (response) => {
    const url = new URL(response.url());
    if (!url.pathname.startsWith('/api/')) return;
    bodies.set(`${url.pathname}${url.search}`, { status: response.status(), type: response.headers()['content-type'] ?? 'application/json', body: await response.body() });
  });

  const measured = new Map<string, Load[]>();
  for (const [name, path] of pages) {
    await load(page, baseUrl, path);
    const loads: Load[] = [];
    for (let i = 0; i < runs; i += 1) loads.push(await load(page, baseUrl, path));
    measured.set(name, loads);
    await screenshot(page, 'bench', name.replace(/[^a-z0-9]+/gi, '-'));
  }

  // The ceiling: the same build and the same API bodies, with no query behind them.
  await ceiling.register(dashboardPlugin, { rootDir: build.dir });
  ceiling.get('/api/*', async (request, reply) => {
    const recorded = bodies.get(request.url);
    if (!recorded) return reply.code(404).send({ error: { code: 'not-found', message: `not recorded: ${request.url}`, requestId: String(request.id) } });
    return reply.code(recorded.status).type(recorded.type).send(recorded.body);
  });
  await ceiling.listen({ port: 0, host: '127.0.0.1' });
  const ceilingUrl = `http://127.0.0.1:${(ceiling.server.address() as AddressInfo).port}`;
  const ceilingPage = await (await browser.newContext({ viewport: { width: 1360, height: 900 } })).newPage();

  console.log(`\n${totalRows.toLocaleString('en')} occurrences (${app.database.dialect}, ${dataDir}); ${runs} loads per page in headless Chromium`);
  console.log('page                              data p50 ms   data max ms   API calls   slowest call ms   ceiling p50 ms   ratio');
  let worst = 0;
  for (const [name, path] of pages) {
    const loads = measured.get(name)!;
    await load(ceilingPage, ceilingUrl, path);
    const ceilingLoads: Load[] = [];
    for (let i = 0; i < runs; i += 1) ceilingLoads.push(await load(ceilingPage, ceilingUrl, path));
    const p50 = median(loads.map((entry) => entry.dataMs));
    const max = Math.max(...loads.map((entry) => entry.dataMs));
    const ceilingP50 = median(ceilingLoads.map((entry) => entry.dataMs));
    worst = Math.max(worst, max);
    console.log(
      `${name.padEnd(32)} ${p50.toFixed(0).padStart(12)} ${max.toFixed(0).padStart(13)} ${String(loads[0]!.calls).padStart(11)} ${median(loads.map((entry) => entry.slowestCallMs)).toFixed(0).padStart(17)} ${ceilingP50.toFixed(0).padStart(16)} ${(p50 / ceilingP50).toFixed(1).padStart(7)}x`,
    );
  }
  console.log(`\nslowest page load until its data arrived: ${worst.toFixed(0)} ms (target < ${targetMs} ms): ${worst < targetMs ? 'met' : 'NOT met'}`);
} finally {
  await browser.close();
  await ceiling.close();
  await app.close();
  build.dispose();
}

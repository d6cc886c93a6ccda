// Alert evaluation cost: 1,000 rules evaluated each minute over 10M occurrences of one day
// (20 services x 200 operations, 50 tenants; target: within 5 s a minute), next to a ceiling:
// one plain scan of the operation rollup rows of the longest rule window ending with the
// evaluated minute (every column rules read, no rule evaluated, nothing decoded): any
// evaluation on the rollups reads at least these rows, so the ceiling bounds how fast
// evaluating a minute can be. Rounds alternate the two in the same run and the ratio is printed.
//
//   npx tsx --conditions=source bench/alerts.ts
//
// BENCH_OCCURRENCES (default 10,000,000) and BENCH_DAYS (default 1) set the size and span (the
// per-minute cost depends on the density, occurrences per minute: BENCH_OCCURRENCES=500000
// BENCH_DAYS=0.05 has the full run's density); BENCH_DATA_DIR keeps the generated SQLite
// database between runs; BENCH_RULES (default 1,000); BENCH_ROUNDS (default 20);
// DATABASE_URL=postgres://... runs it on PostgreSQL.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { sqlTelemetryDatabase } from '../packages/observability-service/src/telemetry/sql-telemetry-database.js';
import { alertMetrics, type AlertRuleSpec } from '../packages/observability-service/src/alerts/alert-rule.js';
import { operationMinutes } from '../packages/observability-service/src/telemetry/alert-reads.js';
import { insertRule, listEvents, newRuleId } from '../packages/observability-service/src/alerts/alert-store.js';
import { defaultShape, end, generate, openDataSetApp, operationName, serviceNames, tenantNames, type DataSetShape } from './support/occurrence-data-set.js';

// The shared data set's services, tenants and size; one day of it, 200 operations per service and 25 error kinds.
const shape: DataSetShape = { ...defaultShape, days: Number(process.env.BENCH_DAYS ?? 1), operationsPerService: 200, errorKindsPerService: 25, seed: 26 };
const services = serviceNames(shape.services);
const tenants = tenantNames(shape.tenants);
const ruleCount = Number(process.env.BENCH_RULES ?? 1_000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 20);
const targetMs = 5_000;
const minuteMs = 60_000;

const keepDir = process.env.BENCH_DATA_DIR;
const dataDir = keepDir ?? mkdtempSync(join(tmpdir(), 'bench-alerts-'));
const reuse = keepDir !== undefined && existsSync(join(keepDir, 'observability.sqlite')) && !process.env.DATABASE_URL;
mkdirSync(dataDir, { recursive: true });

/** Rules over every service, operation, metric and filter; thresholds near the data's values, so some fire and gather evidence. */
function rules(): AlertRuleSpec[] {
  const thresholds: Record<string, { comparison: AlertRuleSpec['comparison']; threshold: number }> = {
    'error-rate': { comparison: '>', threshold: 4 },
    'request-rate': { comparison: '<', threshold: 10 },
    'latency-p50': { comparison: '>', threshold: 20 },
    'latency-p95': { comparison: '>', threshold: 120 },
    'latency-p99': { comparison: '>', threshold: 400 },
    apdex: { comparison: '<', threshold: 0.95 },
    'new-error-group': { comparison: '>', threshold: 0 },
  };
  return Array.from({ length: ruleCount }, (_, i) => {
    const metric = alertMetrics[i % alertMetrics.length]!;
    const service = services[Math.floor(i / alertMetrics.length) % services.length]!;
    const variant = Math.floor(i / (alertMetrics.length * services.length));
    const operation = metric !== 'new-error-group' && variant % 3 === 1 ? operationName((variant * 37) % shape.operationsPerService) : undefined;
    const tenant = ['error-rate', 'request-rate', 'latency-p95'].includes(metric) && operation === undefined && variant % 3 === 2 ? tenants[variant % tenants.length] : undefined;
    return {
      name: `rule ${i}`,
      metric,
      service,
      ...(operation ? { operation } : {}),
      ...(tenant ? { tenant } : {}),
      ...(variant % 2 === 0 ? { environment: 'production' } : {}),
      ...thresholds[metric]!,
      windowMinutes: [1, 5, 10, 15][variant % 4]!,
      forMinutes: variant % 3,
      channels: [],
    };
  });
}

const { app, clock } = await openDataSetApp(dataDir, { reuse, shape, env: { ALERT_EVALUATION_INTERVAL_SECONDS: '3600', ALERT_EVALUATION_DELAY_SECONDS: '0' } });
try {
  if (reuse) console.log(`reusing the data set in ${dataDir}`);
  else if (process.env.DATABASE_URL) await generate(app, shape);
  const db = app.database.db;
  const telemetryDb = sqlTelemetryDatabase(app).db;
  await sql`delete from alert_rules`.execute(db);
  await sql`delete from alert_states`.execute(db);
  await sql`delete from alert_events`.execute(db);
  await sql`update alert_evaluator set evaluated_minute = null, holder = null, lease_expires_at = 0`.execute(db);
  const specs = rules();
  for (const spec of specs) await insertRule(db, { id: newRuleId(), source: 'api', spec }, end, null);
  const ruleServices = [...new Set(specs.map((spec) => spec.service))];
  const longest = Math.max(...specs.map((spec) => spec.windowMinutes ?? 5));

  // The evaluator starts with the minute before the clock; each round moves the clock one minute.
  const first = end - (rounds + 3) * minuteMs;
  clock.set(first);
  await app.alerts.evaluator.runOnce();
  const evaluations: Array<{ wallMs: number; cpuMs: number }> = [];
  const ceilings: Array<{ wallMs: number; cpuMs: number }> = [];
  for (let round = 1; round <= rounds; round += 1) {
    clock.set(first + round * minuteMs);
    const lastMinute = first + (round - 1) * minuteMs;
    const readCpu = process.cpuUsage();
    const readBegan = performance.now();
    await operationMinutes(telemetryDb, ruleServices, lastMinute - (longest - 1) * minuteMs, lastMinute + minuteMs);
    const readUsed = process.cpuUsage(readCpu);
    ceilings.push({ wallMs: performance.now() - readBegan, cpuMs: (readUsed.user + readUsed.system) / 1000 });
    const cpuBefore = process.cpuUsage();
    const began = performance.now();
    const evaluated = await app.alerts.evaluator.runOnce();
    const cpu = process.cpuUsage(cpuBefore);
    if (evaluated.length !== 1) throw new Error(`round ${round} evaluated ${evaluated.length} minutes`);
    evaluations.push({ wallMs: performance.now() - began, cpuMs: (cpu.user + cpu.system) / 1000 });
  }
  const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
  const median = (values: number[]) => sorted(values)[Math.floor(values.length / 2)]!;
  const max = (values: number[]) => sorted(values).at(-1)!;
  const wall = evaluations.map((evaluation) => evaluation.wallMs);
  const events = await listEvents(db, { limit: 100_000 });
  const rows = await operationMinutes(telemetryDb, ruleServices, end - (rounds + 3 + longest) * minuteMs, end);
  console.log(`${shape.occurrences.toLocaleString('en')} occurrences over ${shape.days} days; ${specs.length} rules; ${rows.length.toLocaleString('en')} operation rollup rows in the evaluated minutes and windows; ${events.length} transitions stored with their evidence`);
  const cpu = evaluations.map((evaluation) => evaluation.cpuMs);
  const ceilingWall = ceilings.map((ceiling) => ceiling.wallMs);
  const ceilingCpu = ceilings.map((ceiling) => ceiling.cpuMs);
  // The CPU columns stay comparable on a loaded machine, where the wall clock includes waiting for a core.
  console.log('per minute              median ms   max ms   CPU median ms   ceiling median ms (CPU)   ratio (CPU ratio)   max vs 5 s target');
  console.log(
    `evaluate ${String(specs.length).padEnd(5)} rules     ${median(wall).toFixed(0).padStart(9)}   ${max(wall).toFixed(0).padStart(6)}   ${median(cpu).toFixed(0).padStart(13)}   ${`${median(ceilingWall).toFixed(0)} (${median(ceilingCpu).toFixed(0)})`.padStart(23)}   ${`${(median(wall) / median(ceilingWall)).toFixed(1)} (${(median(cpu) / median(ceilingCpu)).toFixed(1)})`.padStart(17)}   ${((max(wall) / targetMs) * 100).toFixed(1)}%`,
  );
  console.log(`evaluation CPU per round (ms): ${cpu.map((value) => value.toFixed(0)).join(' ')}`);
  console.log(`load average ${loadavg().map((value) => value.toFixed(1)).join(' ')}`);
  if (max(wall) > targetMs) {
    console.error(`FAIL: an evaluation took ${max(wall).toFixed(0)} ms, over the ${targetMs} ms target`);
    process.exitCode = 1;
  }
} finally {
  await app.close();
  if (!keepDir) rmSync(dataDir, { recursive: true, force: true });
}

// Telemetry store write throughput, beside each other in one run: the same requests (realistic
// spans, fresh random ids each) handed to each store's write (what ingestion calls once a request
// is parsed and validated), from concurrent writers, acknowledged once durable: SQLite and PostgreSQL (the SQL store of a
// service built in this process), ClickHouse (the ClickHouse store, on a private
// clickhouse-server). Its ceiling, measured in the same rounds: the same rows, prebuilt as one
// RowBinary body per insert of the size the store's batches reach, inserted back to back into the
// same tables (materialized views included). Figures are spans per second, and per CPU-second
// this process used (plus, for ClickHouse, the server's), which stays comparable when other
// processes compete for the cores.
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { createClient } from '@clickhouse/client';
import { systemClock, type App } from '@playstack/server-kit';
import { TestClickHouseServer } from '@playstack/server-kit/testing';
import { buildApp, loadObservabilityConfig } from '@playstack/observability-service';
import type { NewOccurrence } from '../../packages/observability-service/src/storage/storage-tables.js';
import { ClickHouseTelemetry } from '../../packages/observability-service/src/telemetry/clickhouse/clickhouse-telemetry.js';
import { occurrenceInsertColumns, occurrenceRowsBinary } from '../../packages/observability-service/src/telemetry/clickhouse/clickhouse-occurrence-rows.js';
import { idPlaceholder, randomPrefix } from './realistic-spans.js';
import { onPostgres, postgresUrl, withTempDir } from './scratch.js';

export interface StoreIngestOptions {
  seconds: number;
  concurrency: number;
  rounds: number;
}

interface WriteFigures {
  perSecond: number;
  perCpuSecond: number;
  written: number;
}

interface Writer {
  name: string;
  write: (rows: readonly NewOccurrence[]) => Promise<void>;
  /** CPU seconds used so far by processes other than this one that the writes run on. */
  otherCpuSeconds?: () => number;
}

/** Clock ticks per second of /proc/<pid>/stat's CPU times (USER_HZ, 100 on Linux). */
const ticksPerSecond = 100;

/** User and system CPU seconds a process has used (Linux). */
function processCpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

function ownCpuSeconds(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
}

/** The template's rows as a new request: random ids (as realistic-spans.ts gives them) and starts shifted to now. */
function freshRequest(template: readonly NewOccurrence[], templateNowMs: number): NewOccurrence[] {
  const prefixes = new Map<string, string>();
  const fresh = (id: string) => {
    let prefix = prefixes.get(id);
    if (prefix === undefined) prefixes.set(id, (prefix = randomPrefix()));
    return prefix + id.slice(idPlaceholder.length);
  };
  const shiftMs = Date.now() - templateNowMs;
  return template.map((row) => ({
    ...row,
    trace_id: fresh(row.trace_id),
    span_id: fresh(row.span_id),
    parent_span_id: row.parent_span_id === null ? null : fresh(row.parent_span_id),
    started_at: row.started_at + shiftMs,
  }));
}

/** `concurrency` writers each writing a request, awaiting it, and writing the next, for `seconds`. */
async function writeLoad(writer: Writer, template: readonly NewOccurrence[], templateNowMs: number, options: StoreIngestOptions): Promise<WriteFigures> {
  for (let i = 0; i < 5; i++) await writer.write(freshRequest(template, templateNowMs));
  let written = 0;
  const cpuBefore = ownCpuSeconds() + (writer.otherCpuSeconds?.() ?? 0);
  const startedAt = performance.now();
  const deadline = startedAt + options.seconds * 1000;
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (performance.now() < deadline) {
        await writer.write(freshRequest(template, templateNowMs));
        written += template.length;
      }
    }),
  );
  const elapsed = (performance.now() - startedAt) / 1000;
  const cpu = ownCpuSeconds() + (writer.otherCpuSeconds?.() ?? 0) - cpuBefore;
  return { perSecond: written / elapsed, perCpuSecond: written / cpu, written };
}

/** The ClickHouse ceiling: prebuilt RowBinary bodies of `rowsPerInsert` rows inserted back to back. */
async function clickHouseCeiling(url: string, database: string, template: readonly NewOccurrence[], templateNowMs: number, rowsPerInsert: number, seconds: number, serverPid: number): Promise<WriteFigures & { inserted: number }> {
  const client = createClient({ url, clickhouse_settings: { wait_end_of_query: 1 } });
  const rows = Array.from({ length: Math.ceil(rowsPerInsert / template.length) }, () => freshRequest(template, templateNowMs)).flat();
  const body = occurrenceRowsBinary(rows, Date.now());
  const insert = async () => {
    const result = await client.exec({ query: `INSERT INTO ${database}.occurrences (${occurrenceInsertColumns.join(', ')}) FORMAT RowBinary`, values: Readable.from([body], { objectMode: false }) });
    await finished(result.stream.resume());
  };
  await insert();
  let written = 0;
  const cpuBefore = ownCpuSeconds() + processCpuSeconds(serverPid);
  const startedAt = performance.now();
  while (performance.now() - startedAt < seconds * 1000) {
    await insert();
    written += rows.length;
  }
  const elapsed = (performance.now() - startedAt) / 1000;
  const cpu = ownCpuSeconds() + processCpuSeconds(serverPid) - cpuBefore;
  await client.close();
  return { perSecond: written / elapsed, perCpuSecond: written / cpu, written, inserted: written + rows.length };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const format = (value: number) => Math.round(value).toLocaleString('en-US');

async function sqlWriter(name: string, env: Record<string, string>): Promise<{ writer: Writer; app: App }> {
  const app = await buildApp(loadObservabilityConfig({ ...process.env, ...env, LOG_LEVEL: 'error' }));
  await app.ready();
  return { app, writer: { name, write: (rows) => app.telemetry.write(rows) } };
}

/**
 * Runs the stores' write loads, alternating BENCH_ROUNDS times (load from elsewhere falls on all
 * alike), and prints each store's median figures, ClickHouse's ceiling and ratios, and ClickHouse's
 * bytes per stored span once every part is merged.
 */
export async function storeIngestBench(template: readonly NewOccurrence[], options: StoreIngestOptions, log: (line: string) => void): Promise<void> {
  const templateNowMs = Date.now();
  const server = await TestClickHouseServer.start();
  const apps: App[] = [];
  const run = async (dataDir: string, postgresEnv: Record<string, string> | undefined) => {
    const sqlite = await sqlWriter('SQLite', { DATA_DIR: dataDir });
    apps.push(sqlite.app);
    const writers: Writer[] = [sqlite.writer];
    if (postgresEnv) {
      const postgres = await sqlWriter('PostgreSQL', postgresEnv);
      apps.push(postgres.app);
      writers.push(postgres.writer);
    }
    // Batches as large as ClickHouse likes: every writer's request waiting together.
    const clickHouse = new ClickHouseTelemetry({ url: server.url, database: 'bench', clock: systemClock, maxRowsPerInsert: 100_000 });
    await clickHouse.migrate();
    const serverPid = server.pid!;
    let storedSpans = 0;
    writers.push({
      name: 'ClickHouse',
      write: async (rows) => {
        await clickHouse.write(rows);
        storedSpans += rows.length;
      },
      otherCpuSeconds: () => processCpuSeconds(serverPid),
    });
    const results = new Map<string, WriteFigures[]>([...writers.map((writer) => [writer.name, []] as [string, WriteFigures[]]), ['ClickHouse ceiling', []]]);
    for (let round = 0; round < options.rounds; round++) {
      for (const writer of writers) results.get(writer.name)!.push(await writeLoad(writer, template, templateNowMs, options));
      const ceiling = await clickHouseCeiling(server.url, 'bench', template, templateNowMs, options.concurrency * template.length, options.seconds, serverPid);
      results.get('ClickHouse ceiling')!.push(ceiling);
      storedSpans += ceiling.inserted;
    }
    const medians = new Map([...results].map(([name, figures]) => [name, { perSecond: median(figures.map((f) => f.perSecond)), perCpuSecond: median(figures.map((f) => f.perCpuSecond)) }]));
    log(`\nstore writes: ${template.length}-span requests, ${options.concurrency} writers, ${options.seconds} s per phase, ${options.rounds} rounds (medians); load average ${loadavg()[0]!.toFixed(1)}`);
    for (const [name, figures] of medians) {
      const cpu = name.startsWith('ClickHouse') ? 'per CPU-second of this process and the ClickHouse server' : "per CPU-second of this process (PostgreSQL's own server not counted)";
      log(`  ${name.padEnd(19)} ${format(figures.perSecond).padStart(9)} spans/s durable; ${format(figures.perCpuSecond)} ${cpu}`);
    }
    const ch = medians.get('ClickHouse')!;
    const ceiling = medians.get('ClickHouse ceiling')!;
    const versus = writers.filter((writer) => writer.name !== 'ClickHouse').map((writer) => `ClickHouse / ${writer.name}: ${(ch.perSecond / medians.get(writer.name)!.perSecond).toFixed(2)}`);
    log(`  ClickHouse / its ceiling: ${(ch.perSecond / ceiling.perSecond).toFixed(2)} (per CPU-second ${(ch.perCpuSecond / ceiling.perCpuSecond).toFixed(2)}); ${versus.join('; ')}; target >= 200,000 spans/s`);
    await clickHouse.optimizeForTests();
    const stored = await clickHouse.storage();
    if (stored.occurrences !== storedSpans) throw new Error(`ClickHouse holds ${stored.occurrences} spans but ${storedSpans} were acknowledged`);
    log(`  ClickHouse on disk after merging: ${(stored.bytesOnDisk / stored.occurrences).toFixed(1)} bytes per stored span (every table: spans, trace index, rollups; ${format(stored.occurrences)} spans = acknowledged)`);
    await clickHouse.close();
  };
  try {
    await withTempDir('bench-store-ingest-', async (dataDir) => {
      if (postgresUrl) await onPostgres({ dirPrefix: 'bench-store-ingest-pg-', schemaPrefix: 'bench_store_ingest_' }, (postgresEnv) => run(dataDir, postgresEnv));
      else {
        log('(set BENCH_DATABASE_URL=postgres://... to include PostgreSQL)');
        await run(dataDir, undefined);
      }
    });
  } finally {
    for (const app of apps) await app.close();
    await server.dispose();
  }
}

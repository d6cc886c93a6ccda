// Telemetry store write throughput, beside each other in one run: the same requests (realistic
// spans, fresh random ids each; then log records of about 300 bytes) handed to each store's write (what ingestion calls once a request
// is parsed and validated), from concurrent writers, acknowledged once durable: SQLite and PostgreSQL (the SQL store of a
// service built in this process), ClickHouse (the ClickHouse store, on a private
// clickhouse-server). Its ceiling, measured in the same rounds: the same rows, prebuilt as one
// RowBinary body per insert of the size the store's batches reach, inserted back to back into the
// same tables (materialized views included), as many at once and with the same settings as the store. Figures are spans (records) per second, and per CPU-second
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
import type { NewLogRecord } from '../../packages/observability-service/src/logs/index.js';
import type { NewOccurrence } from '../../packages/observability-service/src/storage/storage-tables.js';
import { logInsertColumns, logRowsBinary, LogUids } from '../../packages/observability-service/src/telemetry/clickhouse/clickhouse-log-rows.js';
import { ClickHouseTelemetry } from '../../packages/observability-service/src/telemetry/clickhouse/clickhouse-telemetry.js';
import { clickHouseConcurrentInserts, clickHouseInsertSettings } from '../../packages/observability-service/src/telemetry/clickhouse/clickhouse-writer.js';
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

interface Writer<Item = NewOccurrence> {
  name: string;
  write: (rows: readonly Item[]) => Promise<void>;
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
async function writeLoad<Item>(writer: Writer<Item>, request: () => Item[], options: StoreIngestOptions): Promise<WriteFigures> {
  for (let i = 0; i < 5; i++) await writer.write(request());
  let written = 0;
  const cpuBefore = ownCpuSeconds() + (writer.otherCpuSeconds?.() ?? 0);
  const startedAt = performance.now();
  const deadline = startedAt + options.seconds * 1000;
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (performance.now() < deadline) {
        const items = request();
        await writer.write(items);
        written += items.length;
      }
    }),
  );
  const elapsed = (performance.now() - startedAt) / 1000;
  const cpu = ownCpuSeconds() + (writer.otherCpuSeconds?.() ?? 0) - cpuBefore;
  return { perSecond: written / elapsed, perCpuSecond: written / cpu, written };
}

/** What the ClickHouse ceiling inserts: a table, its columns, and one prebuilt RowBinary body of `rows` rows. */
interface CeilingInsert {
  table: string;
  columns: readonly string[];
  body: Buffer;
  rows: number;
}

/** The ClickHouse ceiling: one prebuilt RowBinary body inserted back to back, as many at once and with the same settings as the store. */
async function clickHouseCeiling(url: string, database: string, prebuilt: CeilingInsert, seconds: number, serverPid: number): Promise<WriteFigures & { inserted: number }> {
  const client = createClient({ url, clickhouse_settings: { wait_end_of_query: 1, ...clickHouseInsertSettings } });
  const insert = async () => {
    const result = await client.exec({ query: `INSERT INTO ${database}.${prebuilt.table} (${prebuilt.columns.join(', ')}) FORMAT RowBinary`, values: Readable.from([prebuilt.body], { objectMode: false }) });
    await finished(result.stream.resume());
  };
  await insert();
  let written = 0;
  const cpuBefore = ownCpuSeconds() + processCpuSeconds(serverPid);
  const startedAt = performance.now();
  await Promise.all(
    Array.from({ length: clickHouseConcurrentInserts }, async () => {
      while (performance.now() - startedAt < seconds * 1000) {
        await insert();
        written += prebuilt.rows;
      }
    }),
  );
  const elapsed = (performance.now() - startedAt) / 1000;
  const cpu = ownCpuSeconds() + processCpuSeconds(serverPid) - cpuBefore;
  await client.close();
  return { perSecond: written / elapsed, perCpuSecond: written / cpu, written, inserted: written + prebuilt.rows };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const format = (value: number) => Math.round(value).toLocaleString('en-US');

async function sqlApp(env: Record<string, string>): Promise<App> {
  const app = await buildApp(loadObservabilityConfig({ ...process.env, ...env, LOG_LEVEL: 'error' }));
  await app.ready();
  return app;
}

const logMessages = [
  'player joined lobby 7 after matchmaking; queue wait 1.8 s, region eu-west, party of 3',
  'payment gateway slow: retrying charge in 250 ms (attempt 2 of 5) for order checkout',
  'leaderboard high-score updated for board weekly: rank 42 -> 17, score 98,120',
  'session refreshed; access token rotated, family intact, grace window not used',
];

/** A request of `count` log records of about 300 bytes each (body, attributes, resource, trace), stamped now with fresh trace ids. */
function freshLogs(count: number): NewLogRecord[] {
  const nowMs = Date.now();
  return Array.from({ length: count }, (_, index) => {
    const traced = index % 3 !== 0;
    return {
      time_ms: nowMs - (index % 5_000),
      time_ns: 0,
      observed_ms: nowMs,
      severity_number: index % 10 === 0 ? 17 : index % 4 === 0 ? 13 : 9,
      severity_text: index % 10 === 0 ? 'ERROR' : index % 4 === 0 ? 'WARN' : 'INFO',
      body: logMessages[index % logMessages.length]!,
      body_json: 0,
      event_name: null,
      service: `service-${index % 20}`,
      environment: 'production',
      service_version: '1.4.2',
      instance: `i-${index % 8}`,
      scope_name: 'game.server',
      scope_version: null,
      trace_id: traced ? randomPrefix() + randomPrefix() + randomPrefix() + randomPrefix() : null,
      span_id: traced ? randomPrefix() + randomPrefix() : null,
      flags: traced ? 1 : 0,
      tenant_id: `tenant-${index % 50}`,
      attributes: JSON.stringify({ 'player.id': `p-${index}`, region: 'eu-west', attempt: index % 5 }),
      resource_attributes: null,
    };
  });
}

/** Log records per request in the log writes (as bench/ingest's OTLP log requests). */
const logsPerRequest = 1_000;

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
    const sqlApps: Array<{ name: string; app: App }> = [{ name: 'SQLite', app: await sqlApp({ DATA_DIR: dataDir }) }];
    if (postgresEnv) sqlApps.push({ name: 'PostgreSQL', app: await sqlApp(postgresEnv) });
    apps.push(...sqlApps.map((entry) => entry.app));
    // Batches as large as ClickHouse likes: every writer's request waiting together.
    const clickHouse = new ClickHouseTelemetry({ url: server.url, database: 'bench', clock: systemClock, maxRowsPerInsert: 100_000 });
    await clickHouse.migrate();
    const serverPid = server.pid!;
    const acknowledged = { spans: 0, logs: 0 };
    const compare = async <Item>(
      what: string,
      writers: Array<Writer<Item>>,
      request: () => Item[],
      ceiling: () => CeilingInsert,
      count: (inserted: number) => void,
      target: string,
    ) => {
      const results = new Map<string, WriteFigures[]>([...writers.map((writer) => [writer.name, []] as [string, WriteFigures[]]), ['ClickHouse ceiling', []]]);
      for (let round = 0; round < options.rounds; round++) {
        for (const writer of writers) results.get(writer.name)!.push(await writeLoad(writer, request, options));
        const figures = await clickHouseCeiling(server.url, 'bench', ceiling(), options.seconds, serverPid);
        results.get('ClickHouse ceiling')!.push(figures);
        count(figures.inserted);
      }
      const medians = new Map([...results].map(([name, figures]) => [name, { perSecond: median(figures.map((f) => f.perSecond)), perCpuSecond: median(figures.map((f) => f.perCpuSecond)) }]));
      log(`\nstore writes, ${what}: ${request().length}-item requests, ${options.concurrency} writers, ${options.seconds} s per phase, ${options.rounds} rounds (medians); load average ${loadavg()[0]!.toFixed(1)}`);
      for (const [name, figures] of medians) {
        const cpu = name.startsWith('ClickHouse') ? 'per CPU-second of this process and the ClickHouse server' : "per CPU-second of this process (PostgreSQL's own server not counted)";
        log(`  ${name.padEnd(19)} ${format(figures.perSecond).padStart(9)} ${what}/s durable; ${format(figures.perCpuSecond)} ${cpu}`);
      }
      const ch = medians.get('ClickHouse')!;
      const top = medians.get('ClickHouse ceiling')!;
      const versus = writers.filter((writer) => writer.name !== 'ClickHouse').map((writer) => `ClickHouse / ${writer.name}: ${(ch.perSecond / medians.get(writer.name)!.perSecond).toFixed(2)}`);
      log(`  ClickHouse / its ceiling: ${(ch.perSecond / top.perSecond).toFixed(2)} (per CPU-second ${(ch.perCpuSecond / top.perCpuSecond).toFixed(2)}); ${versus.join('; ')}; ${target}`);
    };

    const spanWriters: Writer[] = [
      ...sqlApps.map(({ name, app }): Writer => ({ name, write: (rows) => app.telemetry.write(rows) })),
      {
        name: 'ClickHouse',
        write: async (rows) => {
          await clickHouse.write(rows);
          acknowledged.spans += rows.length;
        },
        otherCpuSeconds: () => processCpuSeconds(serverPid),
      },
    ];
    await compare(
      'spans',
      spanWriters,
      () => freshRequest(template, templateNowMs),
      () => {
        const rows = Array.from({ length: options.concurrency }, () => freshRequest(template, templateNowMs)).flat();
        return { table: 'occurrences', columns: occurrenceInsertColumns, body: occurrenceRowsBinary(rows, Date.now()), rows: rows.length };
      },
      (inserted) => (acknowledged.spans += inserted),
      'target >= 200,000 spans/s',
    );

    const logWriters: Array<Writer<NewLogRecord>> = [
      ...sqlApps.map(({ name, app }): Writer<NewLogRecord> => ({ name, write: (records) => app.telemetry.write([], 0, records) })),
      {
        name: 'ClickHouse',
        write: async (records) => {
          await clickHouse.write([], 0, records);
          acknowledged.logs += records.length;
        },
        otherCpuSeconds: () => processCpuSeconds(serverPid),
      },
    ];
    await compare(
      'log records',
      logWriters,
      () => freshLogs(logsPerRequest),
      () => {
        const records = freshLogs(options.concurrency * logsPerRequest);
        return { table: 'logs', columns: logInsertColumns, body: logRowsBinary(records, Date.now(), new LogUids()), rows: records.length };
      },
      (inserted) => (acknowledged.logs += inserted),
      'target (SQLite, issue 21) >= 100,000 records/s',
    );

    await clickHouse.optimizeForTests();
    const stored = await clickHouse.storage();
    if (stored.occurrences !== acknowledged.spans) throw new Error(`ClickHouse holds ${stored.occurrences} spans but ${acknowledged.spans} were acknowledged`);
    const [logCount] = await clickHouse.rows<{ n: string }>('SELECT count() AS n FROM bench.logs');
    if (Number(logCount!.n) !== acknowledged.logs) throw new Error(`ClickHouse holds ${logCount!.n} log records but ${acknowledged.logs} were acknowledged`);
    const tables = await clickHouse.rows<{ table: string; bytes: string }>("SELECT table, sum(bytes_on_disk) AS bytes FROM system.parts WHERE database = 'bench' AND active GROUP BY table");
    const logBytes = tables.filter((row) => row.table.startsWith('log')).reduce((sum, row) => sum + Number(row.bytes), 0);
    log(`  ClickHouse on disk after merging: ${((stored.bytesOnDisk - logBytes) / stored.occurrences).toFixed(1)} bytes per stored span (spans, trace index, rollups; ${format(stored.occurrences)} spans = acknowledged); ${(logBytes / acknowledged.logs).toFixed(1)} bytes per log record (records, trace days, counts; ${format(acknowledged.logs)} = acknowledged)`);
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

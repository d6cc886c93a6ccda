// The logs part of bench/ingest: OTLP/HTTP protobuf log requests into the service, beside a raw
// insert loop of the same rows into the same tables; and searches over a seeded store.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { applySqlitePragmas, migrateToLatest, openDatabase, SqliteDatabase, type SqlitePragmaOptions } from '@playstack/server-kit';
import { observabilityMigrations } from '../../packages/observability-service/src/migrations/index.js';
import { encodeOtlp } from '../../packages/observability-service/src/otlp/otlp-encoding.js';
import { otlpType } from '../../packages/observability-service/src/otlp/otlp-protos.js';
import { bucketFirstId, bucketStartMs, firstIdAt, idRangeOf } from '../../packages/observability-service/src/logs/log-ids.js';
import { sqlLogStore } from '../../packages/observability-service/src/logs/sql-log-store.js';
import { fts5BodyQuery } from '../../packages/observability-service/src/logs/log-text-search.js';
import { buildTraceDirectory, putEntry, runEntryBytes } from '../../packages/observability-service/src/logs/log-trace-directory.js';
import { traceKey } from '../../packages/observability-service/src/logs/log-trace-key.js';
import { logTables } from '../../packages/observability-service/src/logs/log-tables.js';
import { seededTimeMs, seededTraceId, seedLogs, seededWords } from './log-seed.js';
import { withTempDir } from './scratch.js';

export const logsPerRequest = 1_000;
/**
 * Records are timed at random over the last 2 s before they are sent, as from many senders whose
 * exporters batch for a second or so (OpenTelemetry's batch processor exports every second): ids
 * are time-ordered, so this decides where in each index a record lands. One time for a whole
 * request (as before 2026-12-07) made every index an append and flattered the figure (about 97,000
 * records/s then, against about 46,000 with spread times and ids by millisecond).
 */
const recordSpreadMs = 2_000;

/** The severity of a request's record `index`: a tenth errors, a sixth more warnings, the rest info. */
function severityOf(index: number): [number, string] {
  return index % 10 === 0 ? [17, 'ERROR'] : index % 4 === 0 ? [13, 'WARN'] : [9, 'INFO'];
}

/** `severityOf` as an OTLP record's fields. */
function severityFields(index: number): { severityNumber: number; severityText: string } {
  const [severityNumber, severityText] = severityOf(index);
  return { severityNumber, severityText };
}

/** A record's time: within the `recordSpreadMs` before `nowMs`. */
function recordTimeMs(nowMs: number): number {
  return nowMs - Math.floor(Math.random() * recordSpreadMs);
}
const idMarker = Buffer.from('ffffffff', 'hex');
const messages = [
  'player joined lobby 7 after matchmaking; queue wait 1.8 s, region eu-west, party of 3',
  'payment gateway slow: retrying charge in 250 ms (attempt 2 of 5) for order checkout',
  'leaderboard high-score updated for board weekly: rank 42 -> 17, score 98,120',
  'session refreshed; access token rotated, family intact, grace window not used',
];

/** Services sending logs: each request is one service's (a resource), drawn at random. */
export const logServices = Array.from({ length: 20 }, (_, index) => `bench-svc-${String(index).padStart(2, '0')}`);

/**
 * An ExportLogsServiceRequest of `logsPerRequest` records (about 300 bytes each) per service,
 * with the places each request rewrites (the same in each: the service names are of one length).
 */
export interface LogsTemplate {
  bodies: Buffer[];
  idOffsets: number[];
  timeOffsets: number[];
  templateNanos: bigint;
  bytesPerRecord: number;
}

export function logsTemplate(): LogsTemplate {
  const nanos = BigInt(Date.now()) * 1_000_000n;
  const attribute = (key: string, value: string | number) => ({ key, value: typeof value === 'number' ? { intValue: value } : { stringValue: value } });
  const logRecords = Array.from({ length: logsPerRequest }, (_, index) => ({
    timeUnixNano: String(nanos),
    observedTimeUnixNano: String(nanos),
    ...severityFields(index),
    body: { stringValue: `${messages[index % messages.length]} #${index}` },
    attributes: [attribute('tenant.id', `tenant-${index % 20}`), attribute('player.id', `p-${index * 7919}`), attribute('attempt', index % 5)],
    traceId: Buffer.concat([idMarker, Buffer.alloc(4), Buffer.from((index + 1).toString(16).padStart(16, '0'), 'hex')]),
    spanId: Buffer.from((index + 1).toString(16).padStart(16, '0'), 'hex'),
    flags: 1,
  }));
  const bodies = logServices.map((service) => {
    const resource = { attributes: [attribute('service.name', service), attribute('deployment.environment.name', 'production'), attribute('service.version', '1.0.0')] };
    return encodeOtlp(
      otlpType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest'),
      { resourceLogs: [{ resource, scopeLogs: [{ scope: { name: 'bench' }, logRecords }] }] },
      'protobuf',
    ) as Buffer;
  });
  const body = bodies[0]!;
  const find = (needle: Buffer) => {
    const offsets: number[] = [];
    for (let at = body.indexOf(needle); at !== -1; at = body.indexOf(needle, at + needle.length)) offsets.push(at);
    return offsets;
  };
  const time = Buffer.alloc(8);
  time.writeBigUInt64LE(nanos);
  const idOffsets = find(idMarker);
  const timeOffsets = find(time);
  if (idOffsets.length !== logsPerRequest || timeOffsets.length !== 2 * logsPerRequest) throw new Error('the logs template has unexpected placeholders');
  if (bodies.some((other) => other.length !== body.length)) throw new Error('the services\' templates differ in length');
  return { bodies, idOffsets, timeOffsets, templateNanos: nanos, bytesPerRecord: body.length / logsPerRequest };
}

/** A random service's request with random trace ids, its records timed over the last seconds. */
export function logsBody(template: LogsTemplate): Buffer {
  const body = Buffer.from(template.bodies[Math.floor(Math.random() * template.bodies.length)]!);
  // A random trace id prefix per record: real trace ids are random, and the trace index's cost depends on it.
  for (const offset of template.idOffsets) body.writeUInt32BE((Math.random() * 2 ** 32) >>> 0, offset);
  // Each record timed at random within the last `recordSpreadMs` (senders batch and send late),
  // observed now. Times in nanoseconds go as two 32-bit halves: one BigInt per request, not per record.
  const now = BigInt(Date.now()) * 1_000_000n;
  const nowLow = Number(now & 0xffffffffn);
  const nowHigh = Number(now >> 32n);
  template.timeOffsets.forEach((offset, index) => {
    if (index % 2 === 1) {
      body.writeUInt32LE(nowLow, offset);
      body.writeUInt32LE(nowHigh, offset + 4);
      return;
    }
    const earlierNs = Math.floor(Math.random() * recordSpreadMs * 1e6);
    const low = nowLow - earlierNs;
    body.writeUInt32LE(low >= 0 ? low : low + 2 ** 32, offset);
    body.writeUInt32LE(low >= 0 ? nowHigh : nowHigh - 1, offset + 4);
  });
  return body;
}

/**
 * The storage ceiling: the same rows into `logs`, its FTS5 index and the trace directory's row of
 * the transaction (not its folds, one per 65,536 records), `requestsPerTransaction` requests per
 * transaction (as many as the service's group commit can hold: every request in flight), one
 * core, no HTTP, no counts, no look-up of stored slots. With `withText` false, `logs` alone: what
 * the row store allows without the text index and the directory, which says how much of the
 * ceiling they take (not a bound on the service, which writes them too).
 */
export async function rawLogInsertCeiling(seconds: number, pragmas: SqlitePragmaOptions, requestsPerTransaction: number, withText = true): Promise<{ perSecond: number; perCpuSecond: number }> {
  return withTempDir('bench-logs-raw-', async (dataDir) => {
    const database = await openDatabase({ schema: 'public', poolSize: 1, dataDir, fileName: 'raw.sqlite', ...pragmas });
    await migrateToLatest(database.db, database.dialect, observabilityMigrations, 'obs');
    await database.close();
    const file = new SqliteDatabase(join(dataDir, 'raw.sqlite'));
    // The service's own settings (page cache, checkpoints, memory mapping), so the loop stays a ceiling.
    applySqlitePragmas(file, pragmas);
    const columns = ['id', 'time_ms', 'time_ns', 'observed_ms', 'severity_number', 'severity_text', 'body', 'body_json', 'service', 'environment', 'service_version', 'scope_name', 'trace_id', 'span_id', 'flags', 'tenant_id', 'attributes', 'received_at'];
    const insert = file.prepare(`insert or fail into logs (${columns.join(',')}) values ${Array.from({ length: logsPerRequest }, () => `(${columns.map(() => '?').join(',')})`).join(',')}`);
    const lastRowid = file.prepare('select coalesce(max(rowid), 0) from logs').pluck();
    const index = file.prepare('insert or fail into logs_fts (rowid, body) select id, body from logs not indexed where rowid > ? order by id');
    // The trace directory's per-transaction row; its folds (one per 65,536 records) are left out.
    const traceRun = file.prepare('insert into log_trace_runs (first_id, last_id, records, entries) values (?, ?, ?, ?)');
    // The requests' rows are made beforehand (a pool of them, random trace ids, one service
    // each), so the loop spends its core on storing them: each use copies a pool request's values
    // and sets each record's id and time. Ids as the service gives them (log-ids.ts): each
    // record's time bucket's next slot (the file starts empty, so a counter per bucket knows
    // them); the text index as the service writes it (one statement, the transaction's rows read
    // back in id order); as many requests per transaction as the service's group commit can hold.
    const pool = Array.from({ length: 64 }, () => {
      const service = logServices[Math.floor(Math.random() * logServices.length)]!;
      const rows: unknown[] = [];
      const keys = new Float64Array(logsPerRequest);
      for (let i = 0; i < logsPerRequest; i++) {
        const traceId = `${((Math.random() * 2 ** 32) >>> 0).toString(16).padStart(8, '0')}00000000${(i + 1).toString(16).padStart(16, '0')}`;
        const [severity, severityText] = severityOf(i);
        rows.push(0, 0, 0, 0, severity, severityText, `${messages[i % messages.length]} #${i}`, 0, service, 'production', '1.0.0', 'bench', traceId, (i + 1).toString(16).padStart(16, '0'), 1, `tenant-${i % 20}`, `{"player.id":"p-${i * 7919}","attempt":${i % 5}}`, 0);
        keys[i] = traceKey(traceId);
      }
      return { rows, keys };
    });
    const stride = columns.length;
    const nextSlot = new Map<number, number>();
    const perTransaction = requestsPerTransaction * logsPerRequest;
    const insertRequests = file.transaction(() => {
      const now = Date.now();
      const rowidBefore = lastRowid.get();
      const entries = Buffer.allocUnsafe(perTransaction * runEntryBytes);
      let firstId = Number.POSITIVE_INFINITY;
      let lastId = 0;
      for (let request = 0; request < requestsPerTransaction; request++) {
        const template = pool[Math.floor(Math.random() * pool.length)]!;
        const rows = template.rows.slice();
        for (let i = 0, at = 0; i < logsPerRequest; i++, at += stride) {
          const time = recordTimeMs(now);
          const bucket = bucketStartMs(time);
          const slot = nextSlot.get(bucket) ?? 0;
          nextSlot.set(bucket, slot + 1);
          const id = bucketFirstId(bucket) + slot;
          rows[at] = id;
          rows[at + 1] = time;
          rows[at + 3] = now;
          rows[at + stride - 1] = now;
          putEntry(entries, (request * logsPerRequest + i) * runEntryBytes, template.keys[i]!, id);
          if (id < firstId) firstId = id;
          if (id > lastId) lastId = id;
        }
        insert.run(rows);
      }
      if (withText) {
        index.run(rowidBefore);
        traceRun.run(firstId, lastId, perTransaction, entries);
      }
    });
    for (let i = 0; i < 2; i++) insertRequests();
    const startedAt = performance.now();
    const cpuBefore = process.cpuUsage();
    let inserted = 0;
    while (performance.now() - startedAt < seconds * 1000) {
      insertRequests();
      inserted += perTransaction;
    }
    const perSecond = inserted / ((performance.now() - startedAt) / 1000);
    const cpu = process.cpuUsage(cpuBefore);
    file.close();
    return { perSecond, perCpuSecond: inserted / ((cpu.user + cpu.system) / 1e6) };
  });
}

function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;
}

/** A measurement beside its ceiling: p50 and p95 of each, in ms. */
export interface PairedTimes {
  p50Ms: number;
  p95Ms: number;
  ceilingP50Ms: number;
  ceilingP95Ms: number;
}

/** Times each round's `measure` and then its `ceiling`, `rounds` times, alternating. */
async function alternate(rounds: number, round: (index: number) => { measure: () => Promise<unknown>; ceiling: () => unknown }): Promise<PairedTimes> {
  const measured: number[] = [];
  const bare: number[] = [];
  for (let index = 0; index < rounds; index++) {
    const { measure, ceiling } = round(index);
    let started = performance.now();
    await measure();
    measured.push(performance.now() - started);
    started = performance.now();
    ceiling();
    bare.push(performance.now() - started);
  }
  measured.sort((a, b) => a - b);
  bare.sort((a, b) => a - b);
  return { p50Ms: percentile(measured, 0.5), p95Ms: percentile(measured, 0.95), ceilingP50Ms: percentile(bare, 0.5), ceilingP95Ms: percentile(bare, 0.95) };
}

export interface SearchFigures extends PairedTimes {
  word: string;
  matchesPerMillion: number;
}

/** Where a seeded search store is kept between runs (BENCH_LOG_STORE_DIR), or undefined: a temporary one. */
const keptStoreDir = process.env.BENCH_LOG_STORE_DIR;

/**
 * The directory of a seeded, migrated store of `records` records ending at `endMs` (stored in
 * `seed.json` beside it): in `keptStoreDir` when set, reused when it holds as many records, so
 * repeated runs skip the seeding; otherwise a temporary one.
 */
async function withSeededStore<T>(records: number, log: (line: string) => void, body: (dataDir: string, endMs: number) => Promise<T>): Promise<T> {
  const migrate = async (dataDir: string) => {
    const database = await openDatabase({ schema: 'public', poolSize: 1, dataDir, fileName: 'observability.sqlite', sqliteSynchronous: 'normal' });
    await migrateToLatest(database.db, database.dialect, observabilityMigrations, 'obs');
    await database.close();
  };
  const seedIn = async (dataDir: string): Promise<number> => {
    await migrate(dataDir);
    const endMs = Date.now();
    const seedStarted = performance.now();
    seedLogs(join(dataDir, 'observability.sqlite'), records, endMs, seedSpanMs);
    const database = await openDatabase({ schema: 'public', poolSize: 1, dataDir, fileName: 'observability.sqlite', sqliteSynchronous: 'normal' });
    await buildTraceDirectory(logTables(database.db));
    await database.close();
    log(`seeded ${records.toLocaleString('en-US')} log records in ${((performance.now() - seedStarted) / 1000).toFixed(0)} s (SQL INSERT ... SELECT, then the FTS5 index and the trace directory)`);
    return endMs;
  };
  if (keptStoreDir === undefined) return withTempDir('bench-logs-search-', async (dataDir) => body(dataDir, await seedIn(dataDir)));
  const seedFile = join(keptStoreDir, 'seed.json');
  const kept = existsSync(seedFile) ? (JSON.parse(readFileSync(seedFile, 'utf8')) as { records: number; endMs: number }) : undefined;
  if (kept?.records === records) {
    // Migrations added since the seeding apply to it, as they would to a service's store.
    await migrate(keptStoreDir);
    log(`reusing the ${records.toLocaleString('en-US')} log records seeded in ${keptStoreDir}`);
    return body(keptStoreDir, kept.endMs);
  }
  rmSync(keptStoreDir, { recursive: true, force: true });
  mkdirSync(keptStoreDir, { recursive: true });
  const endMs = await seedIn(keptStoreDir);
  writeFileSync(seedFile, JSON.stringify({ records, endMs }));
  return body(keptStoreDir, endMs);
}

/** The seeded records' span of time, ending at the seeding. */
const seedSpanMs = 24 * 3_600_000;

/** A trace look-up beside its ceiling, the bare primary-key read of the trace's record (what any look-up ends with). */
export interface TraceLookupFigures extends PairedTimes {
  what: string;
}

/**
 * Seeds `records` log records over 24 hours in SQL (or reuses a kept store), then times
 * `GET /api/v1/logs`'s query (the log store's search: q one word, 24 h, newest 50) for a rare, a
 * typical and a common word, alternating with its ceiling: the bare FTS5 match of the same word,
 * newest 50 rowids; and a random record's trace, by `GET /api/v1/traces/{id}/logs`'s query (all
 * time) and by `GET /api/v1/logs?traceId=` 's (24 h), beside the bare read of that record.
 */
export async function searchBench(records: number, rounds: number, log: (line: string) => void): Promise<{ words: SearchFigures[]; traces: TraceLookupFigures[] }> {
  return withSeededStore(records, log, async (dataDir, nowMs) => {
    const store = await openDatabase({ schema: 'public', poolSize: 1, dataDir, fileName: 'observability.sqlite', sqliteSynchronous: 'normal' });
    const logs = sqlLogStore(store);
    const raw = new SqliteDatabase(join(dataDir, 'observability.sqlite'), { readonly: true });
    const ceiling = raw.prepare('select rowid from logs_fts where logs_fts match ? and rowid >= ? and rowid < ? order by rowid desc limit 51');
    const frequencies: Record<string, number> = { [seededWords.rare]: 100, [seededWords.typical]: 3_000, [seededWords.common]: 100_000 };
    const figures: SearchFigures[] = [];
    const traces: TraceLookupFigures[] = [];
    try {
      for (const word of Object.values(seededWords)) {
        const times = await alternate(rounds, (round) => {
          // The range ends a little later each time, as "last 24 hours" does when a user refreshes.
          const range = { fromMs: nowMs - seedSpanMs + round, toMs: nowMs + round };
          const ids = idRangeOf(range.fromMs, range.toMs);
          return { measure: () => logs.search({ range, filters: {}, terms: [word], limit: 51 }), ceiling: () => ceiling.all(fts5BodyQuery([word]), ids.first, ids.end) };
        });
        figures.push({ word, matchesPerMillion: frequencies[word]!, ...times });
      }
      const byId = raw.prepare('select * from logs where id = ?');
      const range = { fromMs: nowMs - seedSpanMs, toMs: nowMs + 1 };
      const lookups: Array<[string, (traceId: string) => Promise<unknown[]>]> = [
        ['trace page (all time)', (traceId) => logs.traceLogs(traceId, 1_001)],
        ['search by traceId (24 h)', (traceId) => logs.search({ range, filters: {}, traceId, limit: 51 })],
      ];
      for (const [what, lookup] of lookups) {
        const times = await alternate(rounds, () => {
          const n = Math.floor(Math.random() * records);
          return {
            measure: async () => {
              const found = await lookup(seededTraceId(n));
              if (found.length !== 1) throw new Error(`the trace of seeded record ${n} found ${found.length} records`);
            },
            ceiling: () => byId.get(firstIdAt(seededTimeMs(n, records, nowMs, seedSpanMs))),
          };
        });
        traces.push({ what, ...times });
      }
    } finally {
      raw.close();
      await store.close();
    }
    return { words: figures, traces };
  });
}

// The observability data set the read-path benchmarks share: BENCH_OCCURRENCES (default
// 10,000,000) occurrences over BENCH_DAYS days (default 7), 20 services, 50 tenants, five spans
// per request, with errors, database calls and attributes. Trace ids are random (a hash of the
// trace's number, so a bench can name a trace it knows); starts are spread evenly over the days.
// Rows are stored in the order live ingestion would store them: each service's spans of a
// 5-second slice together (`arrivalOrder`), not in start order.
//
// On SQLite, `seedSqlite` bulk-loads it into a fresh database file: one transaction, one prepared
// INSERT per occurrence into `occurrences` with its indexes dropped and created again after the
// load, the rollups and error groups merged once per batch of whole minutes by the same code
// ingestion merges them with (telemetry/occurrence-writer.ts `mergeRollups`). What it stores is
// what ingesting the same rows through the SQL telemetry store stores (test/bench-data-set.test.ts
// compares the two). `generate` writes through an open service instead (PostgreSQL).
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { CompiledQuery, Kysely, SqliteDialect } from 'kysely';
import { ManualClock, SqliteDatabase, type App } from '@playstack/server-kit';
import { seededRandom } from '@playstack/server-kit/testing';
import { buildApp, loadObservabilityConfig } from '@playstack/observability-service';
import { normalizeStatement, statementHash, statementVerb } from '../../packages/observability-service/src/ingest/statement-normalizer.js';
import { accumulateRollups, mergeRollups, occurrenceColumns, occurrenceParameters, withErrorGroups } from '../../packages/observability-service/src/telemetry/occurrence-writer.js';
import { recordIngestion } from '../../packages/observability-service/src/storage/ingestion-counters.js';
import type { NewOccurrence } from '../../packages/observability-service/src/storage/storage-tables.js';
import { telemetryTables } from '../../packages/observability-service/src/storage/telemetry-database.js';
import { errorGroupTables } from '../../packages/observability-service/src/errors/error-group-tables.js';
import { sqlTelemetryDatabase, type SqlTelemetryDatabase } from '../../packages/observability-service/src/telemetry/sql-telemetry-database.js';
import { multiRowInsertSql } from '../../packages/observability-service/src/storage/multi-row-insert.js';

export const dayMs = 86_400_000;
export const spansPerTrace = 5;

/** The size and shape of a data set. */
export interface DataSetShape {
  occurrences: number;
  days: number;
  services: number;
  tenants: number;
  /** Distinct request operations (and RPC operations) per service. */
  operationsPerService: number;
  /** Distinct error kinds (error groups) per service. */
  errorKindsPerService: number;
  /** The last start: the data set covers `days` days before it. */
  end: number;
  seed: number;
}

export const end = Date.parse('2026-11-21T12:00:00.000Z');

/** The shape bench/queries reads (BENCH_OCCURRENCES, BENCH_DAYS). */
export const defaultShape: DataSetShape = {
  occurrences: Number(process.env.BENCH_OCCURRENCES ?? 10_000_000),
  days: Number(process.env.BENCH_DAYS ?? 7),
  services: 20,
  tenants: 50,
  operationsPerService: 6,
  errorKindsPerService: 10,
  end,
  seed: 42,
};
export const occurrencesTotal = defaultShape.occurrences;
export const serviceCount = defaultShape.services;
export const tenantCount = defaultShape.tenants;
export const days = defaultShape.days;
export const start = end - days * dayMs;

export const hexOf = (value: number, length: number) => value.toString(16).padStart(length, '0');
export const serviceNames = (count: number) => Array.from({ length: count }, (_, i) => `service-${String(i).padStart(2, '0')}`);
export const tenantNames = (count: number) => Array.from({ length: count }, (_, i) => `tenant-${String(i).padStart(2, '0')}`);
export const services = serviceNames(serviceCount);
export const tenants = tenantNames(tenantCount);
/** The request operation names, the same in every service. */
export const operationName = (index: number) => `GET /api/resource-${index}`;

/** The trace id of a data set's `trace`-th request (from 1): random-looking, but a bench can name it. */
export function traceIdOf(shape: Pick<DataSetShape, 'seed'>, trace: number): string {
  return createHash('sha256').update(`${shape.seed}:${trace}`).digest('hex').slice(0, 32);
}

/** The number of requests (traces) in a data set. */
export const tracesOf = (shape: Pick<DataSetShape, 'occurrences'>) => Math.ceil(shape.occurrences / spansPerTrace);

const statementShapes = Array.from({ length: 30 }, (_, i) => `SELECT id, total FROM table_${i} WHERE owner = `);
const statements = statementShapes.map((shape) => {
  const normalized = normalizeStatement('postgresql', `${shape}1`);
  return { shape, normalized, hash: statementHash(normalized), verb: statementVerb(normalized) ?? null };
});
const regions = ['eu-west', 'eu-central', 'us-east', 'us-west', 'ap-south', 'sa-east', 'af-south', 'me-central'];
const plans = ['free', 'pro', 'enterprise'];

/** Builds a data set's rows, deterministic for its shape (its own seeded random). */
class RowMaker {
  readonly #shape: DataSetShape;
  readonly #random: () => number;
  readonly #services: string[];
  readonly #tenants: string[];

  constructor(shape: DataSetShape) {
    this.#shape = shape;
    this.#random = seededRandom(shape.seed);
    this.#services = serviceNames(shape.services);
    this.#tenants = tenantNames(shape.tenants);
  }

  #pick(n: number): number {
    return Math.floor(this.#random() * n);
  }

  // Errors: each service fails in a handful of ways; ids and numbers in the messages vary per occurrence.
  #errorDetails(service: string): Partial<NewOccurrence> {
    const kind = this.#pick(this.#shape.errorKindsPerService);
    return {
      error_type: `Kind${kind}Error`,
      error_message: `order ${this.#pick(1_000_000)} for user 'u-${this.#pick(100_000)}' failed after ${this.#pick(5000)} ms`,
      error_stack: `Kind${kind}Error: failed\n    at step${kind} (/srv/${service}/src/handlers/step-${kind}.ts:${10 + this.#pick(90)}:5)\n    at run (/srv/${service}/node_modules/framework/index.js:1:1)`,
    };
  }

  // Latency: mostly fast, with a slow tail.
  #duration(): number {
    const random = this.#random;
    return Math.round((0.5 + 200 * random() ** 4 + (random() < 0.01 ? 2000 * random() : 0)) * 1000) / 1000;
  }

  #row(traceId: string, spanIds: string, span: number, parent: number | null, service: string, environment: string, startedAt: number, tenant: string, extra: Partial<NewOccurrence>): NewOccurrence {
    const status = this.#random() < 0.03 ? 'error' : 'ok';
    return {
      client_id: null,
      trace_id: traceId,
      span_id: `${spanIds}${span}`,
      parent_span_id: parent === null ? null : `${spanIds}${parent}`,
      service,
      environment,
      service_version: '1.4.2',
      instance: `${service}-1`,
      operation: 'handle',
      kind: 'server',
      started_at: startedAt,
      duration_ms: this.#duration(),
      status,
      tenant_id: tenant,
      http_method: null,
      http_route: null,
      http_status_code: null,
      db_system: null,
      db_statement: null,
      db_statement_hash: null,
      db_operation: null,
      peer_service: null,
      peer_address: null,
      error_type: null,
      error_message: null,
      error_stack: null,
      attributes: null,
      resource_attributes: null,
      events: null,
      links: null,
      normalized_statement: null,
      ...(status === 'error' ? this.#errorDetails(service) : {}),
      ...extra,
    };
  }

  /** One request: a server span, a call to another service, its server span and query, and internal work. */
  trace(trace: number, startedAt: number): NewOccurrence[] {
    const count = this.#shape.services;
    const a = this.#services[this.#pick(count)]!;
    const b = this.#services[(this.#services.indexOf(a) + 1 + this.#pick(count - 1)) % count]!;
    const environment = this.#random() < 0.9 ? 'production' : 'staging';
    const tenant = this.#tenants[this.#pick(this.#shape.tenants)]!;
    const operation = operationName(this.#pick(this.#shape.operationsPerService));
    const statement = statements[this.#pick(statements.length)]!;
    // Attributes to search by: the region on every span, the plan and a customer on the request.
    const region = regions[this.#pick(regions.length)]!;
    const regionOnly = JSON.stringify({ region });
    const requestAttributes = JSON.stringify({ region, plan: plans[this.#pick(plans.length)], 'customer.id': `customer-${this.#pick(10_000)}` });
    const statusCode = this.#random() < 0.9 ? 200 : this.#random() < 0.7 ? 404 : 500;
    const traceId = traceIdOf(this.#shape, trace);
    // Span ids: 15 hex digits of the trace's hash and the span's number (unique as the hashes are).
    const spanIds = createHash('sha256').update(traceId).digest('hex').slice(0, 15);
    const row = this.#row.bind(this, traceId, spanIds);
    return [
      row(0, null, a, environment, startedAt, tenant, {
        operation,
        http_method: 'GET',
        http_route: operation.slice(4),
        http_status_code: statusCode,
        attributes: requestAttributes,
        ...(statusCode === 500 ? { status: 'error', ...this.#errorDetails(a) } : {}),
      }),
      row(1, 0, a, environment, startedAt + 1, tenant, { operation: `call ${b}`, kind: 'client', peer_service: b, attributes: regionOnly }),
      row(2, 1, b, environment, startedAt + 2, tenant, { operation: `rpc op-${this.#pick(this.#shape.operationsPerService)}`, attributes: regionOnly }),
      row(3, 2, b, environment, startedAt + 3, tenant, {
        operation: 'query',
        kind: 'client',
        db_system: 'postgresql',
        db_statement: `${statement.shape}${this.#pick(100_000)}`,
        db_statement_hash: statement.hash,
        db_operation: statement.verb,
        normalized_statement: statement.normalized,
        attributes: regionOnly,
      }),
      row(4, 0, a, environment, startedAt + 4, tenant, { operation: 'render', kind: 'internal', attributes: regionOnly }),
    ];
  }
}

/**
 * The data set's rows in start order, in batches of at least `batchRows` occurrences that end
 * with a whole minute (a minute's rollup rows are then merged once).
 */
export function* dataSetBatches(shape: DataSetShape, batchRows = 50_000): Generator<NewOccurrence[]> {
  const maker = new RowMaker(shape);
  const traces = tracesOf(shape);
  const first = shape.end - shape.days * dayMs;
  const stepMs = (shape.end - first) / traces;
  const arrival = arrivalOrder(shape);
  let batch: NewOccurrence[] = [];
  let batchMinute = Number.NaN;
  for (let trace = 0; trace < traces; trace += 1) {
    const startedAt = Math.floor(first + trace * stepMs);
    const minute = Math.floor(startedAt / 60_000);
    if (batch.length >= batchRows && minute !== batchMinute) {
      yield arrival(batch);
      batch = [];
    }
    batchMinute = minute;
    batch.push(...maker.trace(trace + 1, startedAt));
  }
  if (batch.length > 0) yield arrival(batch);
}

/** How long an exporter gathers a service's spans before it sends them (OpenTelemetry's batch span processor: 5 s). */
const exportIntervalMs = 5_000;

/**
 * Rows (whole minutes of them) in the order a live store receives them: each service's spans of
 * a 5-second slice together, as its exporter sends them, the services of a slice one after
 * another (in an order that turns with each slice), the slices in time order. Stored in start
 * order instead, a time window's rows would sit next to each other in the table (consecutive ids),
 * which makes every read of a window cheaper than on a store filled by live ingestion.
 */
function arrivalOrder(shape: DataSetShape): (rows: NewOccurrence[]) => NewOccurrence[] {
  const serviceIndex = new Map(serviceNames(shape.services).map((name, index) => [name, index]));
  return (rows) => {
    const keyed = rows.map((row, index) => {
      const slice = Math.floor(row.started_at / exportIntervalMs);
      return { row, index, slice, turn: ((serviceIndex.get(row.service) ?? 0) + slice) % shape.services };
    });
    keyed.sort((a, b) => a.slice - b.slice || a.turn - b.turn || a.index - b.index);
    return keyed.map((entry) => entry.row);
  };
}

/** When the data set's rows are said to be received (every row, as ingestion would stamp them). */
export const receivedAtOf = (shape: Pick<DataSetShape, 'end'>) => shape.end;

const progressEvery = 1_000_000;
/** Occurrences per bulk-load batch (whole minutes): small enough that a batch's objects die young. */
const seedBatchRows = 5_000;

function progress(label: string, began: number, done: number, total: number, reported: { at: number }): void {
  if (done - reported.at < progressEvery && done < total) return;
  reported.at = done;
  console.log(`  ${label} ${done.toLocaleString('en')} occurrences (${Math.round(done / ((performance.now() - began) / 1000)).toLocaleString('en')}/s)`);
}

/**
 * The observability service a bench reads the data set with, its clock at the data set's end: on
 * SQLite under dataDir (seeded first unless `reuse` keeps the data set there), or on DATABASE_URL's
 * database when it is set (generate into it once the app is up). `env` adds settings.
 */
export async function openDataSetApp(
  dataDir: string,
  options: { reuse: boolean; shape?: DataSetShape; env?: Record<string, string>; databaseUrl?: string | undefined; clickHouse?: { url: string; database: string } },
): Promise<{ app: App; clock: ManualClock }> {
  const databaseUrl = 'databaseUrl' in options ? options.databaseUrl : process.env.DATABASE_URL;
  if (!options.reuse && !databaseUrl && !options.clickHouse) await seedSqlite(dataDir, options.shape);
  const clock = new ManualClock(end);
  const app = await buildApp(
    loadObservabilityConfig({
      LOG_LEVEL: 'silent',
      DATA_DIR: dataDir,
      ROLLUP_TIER_INTERVAL_SECONDS: '3600',
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      ...(options.clickHouse ? { CLICKHOUSE_URL: options.clickHouse.url, CLICKHOUSE_DATABASE: options.clickHouse.database } : {}),
      ...options.env,
    }),
    { clock },
  );
  return { app, clock };
}

/**
 * Bulk-loads the data set into a fresh SQLite database in `dataDir` (created and migrated by the
 * service first). See the file comment for how; a crash leaves a database to delete, not to use.
 */
export async function seedSqlite(dataDir: string, shape: DataSetShape = defaultShape, quiet = false): Promise<void> {
  const began = performance.now();
  const migrated = await buildApp(loadObservabilityConfig({ LOG_LEVEL: 'silent', DATA_DIR: dataDir, ROLLUP_TIER_INTERVAL_SECONDS: '3600' }), { clock: new ManualClock(shape.end) });
  await migrated.close();
  const file = new SqliteDatabase(join(dataDir, 'observability.sqlite'));
  file.pragma('journal_mode = OFF');
  file.pragma('synchronous = OFF');
  file.pragma('cache_size = -262144');
  const db = new Kysely<SqlTelemetryDatabase>({ dialect: new SqliteDialect({ database: file }) });
  try {
    const indexes = file.prepare(`select name, sql from sqlite_master where type = 'index' and tbl_name = 'occurrences' and sql is not null`).all() as Array<{ name: string; sql: string }>;
    file.exec('begin');
    for (const index of indexes) file.exec(`drop index "${index.name}"`);
    const placeholders = occurrenceColumns.map(() => '?').join(', ');
    const insert = file.prepare(`insert into occurrences (${occurrenceColumns.join(', ')}) values (${placeholders})`);
    const rollupInserts = new Map<string, { columns: string[]; statement: ReturnType<typeof file.prepare> }>();
    const receivedAt = receivedAtOf(shape);
    const reported = { at: 0 };
    let done = 0;
    const phases = { make: 0, insert: 0, accumulate: 0, rollups: 0 };
    let mark = performance.now();
    const lap = (phase: keyof typeof phases) => {
      const now = performance.now();
      phases[phase] += now - mark;
      mark = now;
    };
    for (const batch of dataSetBatches(shape, seedBatchRows)) {
      const grouped = withErrorGroups(batch);
      lap('make');
      for (const row of grouped) insert.run(occurrenceParameters([row], receivedAt));
      lap('insert');
      // Batches hold whole minutes, so their rollup rows are new: inserted as mergeInto would store them.
      const { rollups, errorGroups } = accumulateRollups(grouped, []);
      lap('accumulate');
      for (const accumulator of rollups) {
        let target = rollupInserts.get(accumulator.table);
        if (!target) {
          const columns = accumulator.columns;
          target = { columns, statement: file.prepare(`insert into ${accumulator.table} (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})`) };
          rollupInserts.set(accumulator.table, target);
        }
        for (const row of accumulator.newRows()) target.statement.run(target.columns.map((column) => row[column]));
      }
      await errorGroups.mergeInto(errorGroupTables(db));
      lap('rollups');
      done += batch.length;
      if (!quiet) progress('loaded', began, done, shape.occurrences, reported);
    }
    await recordIngestion(telemetryTables(db), receivedAt, done, 0);
    const indexing = performance.now();
    for (const index of indexes) file.exec(index.sql);
    file.exec('commit');
    file.pragma('journal_mode = WAL');
    const seconds = (ms: number) => `${(ms / 1000).toFixed(0)} s`;
    if (!quiet) {
      console.log(
        `seeded ${done.toLocaleString('en')} occurrences in ${seconds(performance.now() - began)}: rows made ${seconds(phases.make)}, inserted ${seconds(phases.insert)}, ` +
          `rollups summed ${seconds(phases.accumulate)} and stored ${seconds(phases.rollups)}, indexes ${seconds(performance.now() - indexing)}`,
      );
    }
  } finally {
    if (file.inTransaction) file.exec('rollback');
    await db.destroy();
  }
}

/**
 * Writes the data set through an open service's database (PostgreSQL; `seedSqlite` is the fast
 * way on SQLite): raw rows, rollups and error groups in one transaction per batch.
 */
/**
 * Writes the data set through an open service's telemetry store (ClickHouse: its writer, inserts
 * of 20,000 rows as ingestion makes them), then has its upkeep resolve what it needs (ClickHouse:
 * the dependency edges) with the clock past the data's last receipt, and sets the clock back.
 */
export async function generateThroughStore(app: App, clock: ManualClock, shape: DataSetShape = defaultShape): Promise<void> {
  const began = performance.now();
  const reported = { at: 0 };
  let done = 0;
  for (const batch of dataSetBatches(shape, 20_000)) {
    await app.telemetry.write(withErrorGroups(batch));
    done += batch.length;
    progress('generated', began, done, shape.occurrences, reported);
  }
  const at = clock.now();
  clock.set(shape.end + 10 * 60_000);
  while ((await app.telemetry.maintain()).minutes > 0);
  clock.set(at);
  console.log(`generated ${done.toLocaleString('en')} occurrences through the telemetry store in ${((performance.now() - began) / 1000).toFixed(0)} s`);
}

export async function generate(app: App, shape: DataSetShape = defaultShape): Promise<void> {
  const began = performance.now();
  const reported = { at: 0 };
  let done = 0;
  const rowsPerInsert = 500;
  for (const batch of dataSetBatches(shape, 50_000)) {
    const rows = withErrorGroups(batch);
    await sqlTelemetryDatabase(app).db.transaction().execute(async (trx) => {
      for (let offset = 0; offset < rows.length; offset += rowsPerInsert) {
        const chunk = rows.slice(offset, offset + rowsPerInsert);
        const insert = multiRowInsertSql(app.database.dialect, 'occurrences', occurrenceColumns, chunk.length);
        await trx.executeQuery(CompiledQuery.raw(insert, occurrenceParameters(chunk, receivedAtOf(shape))));
      }
      await mergeRollups(trx, rows, []);
    });
    done += batch.length;
    progress('generated', began, done, shape.occurrences, reported);
  }
  await recordIngestion(telemetryTables(sqlTelemetryDatabase(app).db), receivedAtOf(shape), done, 0);
  console.log(`generated ${done.toLocaleString('en')} occurrences in ${((performance.now() - began) / 1000).toFixed(0)} s`);
}

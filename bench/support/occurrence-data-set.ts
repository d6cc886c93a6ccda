// The observability data set the read-path benchmarks share: BENCH_OCCURRENCES (default
// 10,000,000) occurrences over 7 days, 20 services, 50 tenants, five spans per request, with
// errors, database calls and attributes; stored the way ingestion stores them (raw rows, rollups
// and error groups in one transaction per batch).
import { performance } from 'node:perf_hooks';
import { CompiledQuery, type Kysely } from 'kysely';
import type { App } from '@playstack/server-kit';
import { seededRandom } from '@playstack/server-kit/testing';
import { normalizeStatement, statementHash, statementVerb } from '../../packages/observability-service/src/ingest/statement-normalizer.js';
import { mergeRollups, occurrenceColumns, occurrenceParameters, withErrorGroups } from '../../packages/observability-service/src/storage/occurrence-writer.js';
import type { NewOccurrence, TelemetryDatabase } from '../../packages/observability-service/src/storage/storage-tables.js';
import { multiRowInsertSql } from '../../packages/observability-service/src/storage/multi-row-insert.js';

export const occurrencesTotal = Number(process.env.BENCH_OCCURRENCES ?? 10_000_000);
export const serviceCount = 20;
export const tenantCount = 50;
export const operationsPerService = 6;
export const spansPerTrace = 5;
export const dayMs = 86_400_000;
export const days = Number(process.env.BENCH_DAYS ?? 7);
export const end = Date.parse('2026-11-21T12:00:00.000Z');
export const start = end - days * dayMs;
const batchTraces = 10_000;
const rowsPerInsert = 500;


const random = seededRandom(42);
const pickIndex = (n: number) => Math.floor(random() * n);
export const hexOf = (value: number, length: number) => value.toString(16).padStart(length, '0');
export const services = Array.from({ length: serviceCount }, (_, i) => `service-${String(i).padStart(2, '0')}`);
export const tenants = Array.from({ length: tenantCount }, (_, i) => `tenant-${String(i).padStart(2, '0')}`);
const statementShapes = Array.from({ length: 30 }, (_, i) => `SELECT id, total FROM table_${i} WHERE owner = `);
const statements = statementShapes.map((shape) => {
  const normalized = normalizeStatement('postgresql', `${shape}1`);
  return { shape, normalized, hash: statementHash(normalized), verb: statementVerb(normalized) ?? null };
});
// Errors: each service fails in a handful of ways; ids and numbers in the messages vary per occurrence.
const errorKindsPerService = 10;
function errorDetails(service: string): Partial<NewOccurrence> {
  const kind = pickIndex(errorKindsPerService);
  return {
    error_type: `Kind${kind}Error`,
    error_message: `order ${pickIndex(1_000_000)} for user 'u-${pickIndex(100_000)}' failed after ${pickIndex(5000)} ms`,
    error_stack: `Kind${kind}Error: failed\n    at step${kind} (/srv/${service}/src/handlers/step-${kind}.ts:${10 + pickIndex(90)}:5)\n    at run (/srv/${service}/node_modules/framework/index.js:1:1)`,
  };
}
const regions = ['eu-west', 'eu-central', 'us-east', 'us-west', 'ap-south', 'sa-east', 'af-south', 'me-central'];
const plans = ['free', 'pro', 'enterprise'];
// Latency: mostly fast, with a slow tail.
const duration = () => Math.round((0.5 + 200 * random() ** 4 + (random() < 0.01 ? 2000 * random() : 0)) * 1000) / 1000;

function row(trace: number, span: number, parent: number | null, service: string, environment: string, startedAt: number, tenant: string, extra: Partial<NewOccurrence>): NewOccurrence {
  const status = random() < 0.03 ? 'error' : 'ok';
  return {
    client_id: null,
    trace_id: hexOf(trace, 32),
    span_id: hexOf(trace * 8 + span, 16),
    parent_span_id: parent === null ? null : hexOf(trace * 8 + parent, 16),
    service,
    environment,
    service_version: '1.4.2',
    instance: `${service}-1`,
    operation: 'handle',
    kind: 'server',
    started_at: startedAt,
    duration_ms: duration(),
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
    ...(status === 'error' ? errorDetails(service) : {}),
    ...extra,
  };
}

/** One request: a server span, a call to another service, its server span and query, and internal work. */
function traceRows(trace: number, startedAt: number): NewOccurrence[] {
  const a = services[pickIndex(serviceCount)]!;
  const b = services[(services.indexOf(a) + 1 + pickIndex(serviceCount - 1)) % serviceCount]!;
  const environment = random() < 0.9 ? 'production' : 'staging';
  const tenant = tenants[pickIndex(tenantCount)]!;
  const operation = `GET /api/resource-${pickIndex(operationsPerService)}`;
  const statement = statements[pickIndex(statements.length)]!;
  // Attributes to search by: the region on every span, the plan and a customer on the request.
  const region = regions[pickIndex(regions.length)]!;
  const regionOnly = JSON.stringify({ region });
  const requestAttributes = JSON.stringify({ region, plan: plans[pickIndex(plans.length)], 'customer.id': `customer-${pickIndex(10_000)}` });
  const statusCode = random() < 0.9 ? 200 : random() < 0.7 ? 404 : 500;
  return [
    row(trace, 0, null, a, environment, startedAt, tenant, {
      operation,
      http_method: 'GET',
      http_route: operation.slice(4),
      http_status_code: statusCode,
      attributes: requestAttributes,
      ...(statusCode === 500 ? { status: 'error', ...errorDetails(a) } : {}),
    }),
    row(trace, 1, 0, a, environment, startedAt + 1, tenant, { operation: `call ${b}`, kind: 'client', peer_service: b, attributes: regionOnly }),
    row(trace, 2, 1, b, environment, startedAt + 2, tenant, { operation: `rpc op-${pickIndex(operationsPerService)}`, attributes: regionOnly }),
    row(trace, 3, 2, b, environment, startedAt + 3, tenant, {
      operation: 'query',
      kind: 'client',
      db_system: 'postgresql',
      db_statement: `${statement.shape}${pickIndex(100_000)}`,
      db_statement_hash: statement.hash,
      db_operation: statement.verb,
      normalized_statement: statement.normalized,
      attributes: regionOnly,
    }),
    row(trace, 4, 0, a, environment, startedAt + 4, tenant, { operation: 'render', kind: 'internal', attributes: regionOnly }),
  ];
}

/**
 * Stores a batch the way ingestion does (raw rows plus the four per-minute rollups and the error groups, in one
 * transaction), minus the envelope handling and the parent/child edge search: every call in this
 * data set names its peer, so that search would find nothing.
 */
async function store(app: App, newRows: readonly NewOccurrence[]): Promise<void> {
  const receivedAt = app.clock.now();
  const rows = withErrorGroups(newRows);
  await (app.database.db as Kysely<TelemetryDatabase>).transaction().execute(async (trx) => {
    for (let offset = 0; offset < rows.length; offset += rowsPerInsert) {
      const chunk = rows.slice(offset, offset + rowsPerInsert);
      const insert = multiRowInsertSql(app.database.dialect, 'occurrences', occurrenceColumns, chunk.length);
      await trx.executeQuery(CompiledQuery.raw(insert, occurrenceParameters(chunk, receivedAt)));
    }
    await mergeRollups(trx, rows, []);
  });
}

/** Writes the data set: `occurrencesTotal` occurrences, five per trace, spread evenly over `days` days ending at `end`. */
export async function generate(app: App): Promise<void> {
  const traces = Math.ceil(occurrencesTotal / spansPerTrace);
  const stepMs = (end - start) / traces;
  const began = performance.now();
  for (let first = 0; first < traces; first += batchTraces) {
    const rows: NewOccurrence[] = [];
    for (let trace = first; trace < Math.min(traces, first + batchTraces); trace += 1) rows.push(...traceRows(trace + 1, Math.floor(start + trace * stepMs)));
    await store(app, rows);
    if ((first / batchTraces) % 50 === 0) {
      const done = (first + batchTraces) * spansPerTrace;
      console.log(`  generated ${done.toLocaleString('en')} occurrences (${Math.round(done / ((performance.now() - began) / 1000)).toLocaleString('en')}/s)`);
    }
  }
  console.log(`generated ${occurrencesTotal.toLocaleString('en')} occurrences in ${((performance.now() - began) / 1000).toFixed(0)} s`);
}

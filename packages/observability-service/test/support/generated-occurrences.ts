import { seededRandom } from '@playstack/server-kit/testing';
import { mapOccurrence } from '../../src/ingest/occurrence-mapper.js';
import type { ProtocolOccurrence, ProtocolResource } from '../../src/ingest/protocol-types.js';
import type { NewOccurrence } from '../../src/storage/storage-tables.js';

const hex = (random: () => number, length: number) => Array.from({ length }, () => Math.floor(random() * 16).toString(16)).join('');

export const generatedServices = ['gateway', 'orders', 'payments'] as const;
/** A service without entry spans (a batch worker): its figures count its internal root spans. */
export const generatedWorker = 'worker';
/** Apdex thresholds the tests use; generated durations keep 3% away from each T and 4T, where a histogram bucket could put them on either side. */
export const generatedApdexThresholdsMs = [100, 500] as const;
export const generatedEnvironments = ['production', 'staging'] as const;
/** Tenant ids chosen to exercise CSV quoting: commas, quotes, line breaks. */
export const generatedTenants = ['acme', 'globex, inc.', 'say "hi"', 'multi\nline\r\ntenant', 'umbrella'] as const;
const operations: Record<string, string[]> = {
  gateway: ['GET /orders', 'POST /orders', 'GET /health'],
  orders: ['load order', 'save order', 'list orders'],
  payments: ['charge', 'refund', 'authorize'],
  worker: ['process job', 'sweep carts'],
};

/** 1 ms to about 3 s, skewed towards fast (percentiles have something to separate), kept out of the Apdex edges. */
function generatedDuration(random: () => number): number {
  let durationMs = Math.round((1 + random() ** 3 * 3000) * 1000) / 1000;
  const edges = generatedApdexThresholdsMs.flatMap((thresholdMs) => [thresholdMs, 4 * thresholdMs]);
  while (edges.some((edge) => Math.abs(durationMs - edge) <= edge * 0.03)) durationMs = Math.round(durationMs * 1.07 * 1000) / 1000;
  return durationMs;
}

/** What a generated occurrence is: its kind, whether it has a parent, and what it calls. */
function generatedShape(random: () => number, service: string): { kind: ProtocolOccurrence['kind']; child: boolean; call?: 'db' | 'peer'; operation?: string } {
  const shape = random();
  if (service === generatedWorker) {
    if (shape < 0.4) return { kind: 'internal', child: false };
    if (shape < 0.7) return { kind: 'internal', child: true, operation: 'step' };
    return { kind: 'client', child: true, call: 'db' };
  }
  if (shape < 0.3) return { kind: 'client', child: true, call: 'db' };
  if (shape < 0.5) return { kind: 'client', child: true, call: 'peer' };
  if (shape < 0.55) return { kind: 'producer', child: true, operation: 'publish order' };
  if (shape < 0.62) return { kind: 'consumer', child: random() < 0.5, operation: 'handle order' };
  if (shape < 0.7) return { kind: 'internal', child: random() < 0.8, operation: 'render' };
  return { kind: 'server', child: random() < 0.3 };
}
const statements = [
  (n: number) => `SELECT * FROM orders WHERE id = ${n}`,
  (n: number) => `UPDATE orders SET total = ${n}.5 WHERE id = ${n + 1}`,
  (n: number) => `INSERT INTO payments (id, amount) VALUES (${n}, 'x${n}')`,
];

export interface GeneratedDataSet {
  /** As stored (the writer's input), in generation order. */
  rows: NewOccurrence[];
  /** The trace built by hand: three services, one span whose parent never arrives. */
  traceId: string;
}

/** An occurrence as ingestion stores it (any start accepted). */
export function generatedRow(resource: ProtocolResource, occurrence: ProtocolOccurrence): NewOccurrence {
  const result = mapOccurrence(resource, occurrence, { oldestMs: 0, newestMs: Number.MAX_SAFE_INTEGER });
  if (!result.ok) throw new Error(result.message);
  return result.row;
}

/**
 * Occurrences over the 24 hours before `nowMs` (none in the hour starting 10 hours before it,
 * so a trend shows empty buckets) plus some from one to three days earlier, which the default
 * range must leave out; with databases, peers, tenants and errors; and one hand-built trace.
 */
export function generateDataSet(nowMs: number, count: number, seed = 7): GeneratedDataSet {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const hourMs = 3_600_000;
  const gapStart = nowMs - 10 * hourMs;
  const rows: NewOccurrence[] = [];
  for (let i = 0; i < count; i += 1) {
    const old = i % 10 === 0;
    let startedAt = old ? nowMs - hourMs * 24 - Math.floor(random() * 48 * hourMs) - 1 : nowMs - 1 - Math.floor(random() * 24 * hourMs);
    if (startedAt >= gapStart && startedAt < gapStart + hourMs) startedAt -= hourMs;
    const service = random() < 0.2 ? generatedWorker : pick(generatedServices);
    const environment = random() < 0.75 ? 'production' : 'staging';
    const shape = generatedShape(random, service);
    const isDb = shape.call === 'db';
    const isPeer = shape.call === 'peer';
    const occurrence: ProtocolOccurrence = {
      traceId: hex(random, 32),
      spanId: hex(random, 16),
      ...(shape.child ? { parentSpanId: hex(random, 16) } : {}),
      operation: isDb ? 'query' : (shape.operation ?? pick(operations[service]!)),
      kind: shape.kind,
      startedAt: new Date(startedAt).toISOString(),
      durationMs: generatedDuration(random),
      status: random() < 0.15 ? 'error' : 'ok',
      ...(random() < 0.8 ? { tenantId: pick(generatedTenants) } : {}),
      ...(isDb ? { db: { system: pick(['postgresql', 'mysql']), statement: pick(statements)(Math.floor(random() * 1000)) } } : {}),
      ...(isPeer ? { peer: { service: pick(generatedServices.filter((s) => s !== service)) } } : {}),
      ...(i % 7 === 0 ? { attributes: { 'http.client_ip': '10.0.0.1', retries: 2, cached: false } } : {}),
    };
    rows.push(generatedRow({ service, environment }, occurrence));
  }

  const traceId = 'abcdef0123456789abcdef0123456789';
  const t0 = nowMs - 30 * 60_000;
  const span = (service: string, spanId: string, parentSpanId: string | undefined, offsetMs: number, durationMs: number, extra: Partial<ProtocolOccurrence> = {}) =>
    generatedRow(
      { service, environment: 'production' },
      {
        traceId,
        spanId,
        ...(parentSpanId === undefined ? {} : { parentSpanId }),
        operation: `${service} step ${spanId.slice(-2)}`,
        kind: 'server',
        startedAt: new Date(t0 + offsetMs).toISOString(),
        durationMs,
        status: 'ok',
        tenantId: 'acme',
        ...extra,
      },
    );
  rows.push(
    span('orders', '00000000000000b1', '00000000000000a2', 12, 40),
    span('gateway', '00000000000000a1', undefined, 0, 120, { http: { method: 'GET', route: '/orders/:id', statusCode: 200 } }),
    span('gateway', '00000000000000a2', '00000000000000a1', 10, 50, { kind: 'client', peer: { service: 'orders' } }),
    span('orders', '00000000000000b2', '00000000000000b1', 20, 15, { kind: 'client', db: { system: 'postgresql', statement: 'SELECT * FROM orders WHERE id = 1' } }),
    span('gateway', '00000000000000a3', '00000000000000a1', 70, 40, { kind: 'client', peer: { service: 'payments' } }),
    span('payments', '00000000000000c1', '00000000000000a3', 72, 30, { status: 'error', error: { type: 'CardDeclined', message: 'declined, "insufficient" funds' } }),
    span('payments', '00000000000000c2', '00000000000000a1', 112, 6, { operation: 'payments audit' }),
    span('payments', '00000000000000c9', '00000000000000ff', 95, 5),
  );
  return { rows, traceId };
}


/** Error details given to a share of the generated errors, so they are grouped into error groups. */
const errorShapes = [
  { error_type: 'TimeoutError', error_message: 'timed out after 3000 ms', error_stack: 'TimeoutError: timed out\n    at fetchOrder (/app/src/orders.js:10:5)' },
  { error_type: 'TypeError', error_message: "Cannot read properties of undefined (reading 'id')", error_stack: 'TypeError: x\n    at render (/app/src/view.js:3:1)' },
  { error_type: null, error_message: 'payment declined for order 42', error_stack: null },
] as const;

/** `generateDataSet`, every second error given a type, message and stack (three error groups per service, at most). */
export function generateErrorGroupedDataSet(nowMs: number, count: number, seed = 7): GeneratedDataSet {
  const data = generateDataSet(nowMs, count, seed);
  let errors = 0;
  const rows = data.rows.map((row) => (row.status === 'error' && (errors += 1) % 2 === 0 ? { ...row, ...errorShapes[errors % errorShapes.length]! } : row));
  return { rows, traceId: data.traceId };
}

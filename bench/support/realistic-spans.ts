// Realistic span traffic for bench/ingest: traces across 20 services of 200 operations each, 50
// tenants, about 30% client spans (database calls and calls to another service, whose server span
// is the cross-service child), spans started over the last 5 s, and fresh random trace and span
// ids in every request. Identical or sequential ids would measure append-only B-trees, which real
// traffic (random 128-bit trace ids) never gives the indexes keyed by id.
import { seededRandom } from '@playstack/server-kit/testing';
import type { ProtocolOccurrence } from '../../packages/observability-service/src/ingest/protocol-types.js';

export const serviceCount = 20;
export const operationsPerService = 200;
export const tenantCount = 50;
/** Spans start up to this long before the request is sent. */
export const spreadMs = 5_000;
/** The share of traces with a database call: 5.7 spans per trace, 1.7 of them client spans (30%). */
const databaseCallShare = 0.7;

/** A span of the template: the occurrence (ids are placeholders), its service, and how long before sending it started. */
export interface TemplateSpan {
  service: string;
  occurrence: ProtocolOccurrence;
  startsBeforeMs: number;
}

/** Placeholder ids: this prefix, then a number unique to the trace or span in the template. */
export const idPlaceholder = 'ffffffff';

export const serviceName = (index: number) => `service-${index.toString().padStart(2, '0')}`;

/** `count` spans of whole traces (the last trace cut short), in the order an exporter sends them. */
export function realisticSpans(count: number): TemplateSpan[] {
  // Seeded, so every run sends the same shapes.
  const random = seededRandom(20261127);
  const pick = (n: number) => Math.floor(random() * n);
  const spans: TemplateSpan[] = [];
  let spanNumber = 0;
  const spanId = () => `${idPlaceholder}${(spanNumber++).toString(16).padStart(8, '0')}`;
  for (let trace = 0; spans.length < count; trace++) {
    const traceId = `${idPlaceholder}${trace.toString(16).padStart(24, '0')}`;
    const caller = pick(serviceCount);
    const callee = (caller + 1 + pick(serviceCount - 1)) % serviceCount;
    const operation = pick(operationsPerService);
    const tenantId = `tenant-${pick(tenantCount).toString().padStart(2, '0')}`;
    // Every span has ended when the request is sent (the longest root lasts 100 ms).
    const startsBeforeMs = 200 + pick(spreadMs - 200);
    const isError = pick(40) === 0;
    const route = `/api/v1/resource-${operation}/:id`;
    const add = (service: number, occurrence: Omit<ProtocolOccurrence, 'traceId' | 'startedAt'>, offsetMs: number) =>
      spans.push({ service: serviceName(service), occurrence: { ...occurrence, traceId, startedAt: '' }, startsBeforeMs: startsBeforeMs - offsetMs });
    const root = spanId();
    const status = isError ? 'error' : 'ok';
    add(caller, { spanId: root, operation: `GET ${route}`, kind: 'server', durationMs: 20 + pick(80), status, tenantId, http: { method: 'GET', route, statusCode: isError ? 500 : 200 } }, 0);
    add(caller, { spanId: spanId(), parentSpanId: root, operation: `handle resource-${operation}`, kind: 'internal', durationMs: 2 + pick(10), status: 'ok', tenantId }, 1);
    if (random() < databaseCallShare) {
      const table = `table_${operation % 40}`;
      add(
        caller,
        { spanId: spanId(), parentSpanId: root, operation: `SELECT ${table}`, kind: 'client', durationMs: 1 + pick(9), status: 'ok', tenantId, db: { system: 'postgresql', statement: `SELECT * FROM ${table} WHERE id = ${pick(1_000_000)}`, operation: 'SELECT' } },
        2,
      );
    }
    const call = spanId();
    const calleeOperation = pick(operationsPerService);
    add(caller, { spanId: call, parentSpanId: root, operation: `POST ${serviceName(callee)}`, kind: 'client', durationMs: 5 + pick(30), status, tenantId, peer: { service: serviceName(callee) } }, 4);
    const served = spanId();
    add(callee, { spanId: served, parentSpanId: call, operation: `POST /internal/op-${calleeOperation}`, kind: 'server', durationMs: 4 + pick(28), status, tenantId, http: { method: 'POST', route: `/internal/op-${calleeOperation}`, statusCode: isError ? 500 : 200 } }, 5);
    add(callee, { spanId: spanId(), parentSpanId: served, operation: `compute op-${calleeOperation}`, kind: 'internal', durationMs: 1 + pick(20), status: 'ok', tenantId }, 6);
  }
  spans.length = count;
  return spans;
}

/** A fresh random 8-hex-digit prefix. */
export function randomPrefix(): string {
  return ((Math.random() * 2 ** 32) >>> 0).toString(16).padStart(8, '0');
}

const placeholderIds = new RegExp(`${idPlaceholder}([0-9a-f]{8}(?:[0-9a-f]{16})?)`, 'g');

/**
 * `text` with every placeholder id given a random prefix, the same one wherever the same id
 * recurs (a span's id and its children's parent id, a trace's spans).
 */
export function withRandomIds(text: string): string {
  const prefixes = new Map<string, string>();
  return text.replace(placeholderIds, (_, suffix: string) => {
    let prefix = prefixes.get(suffix);
    if (prefix === undefined) {
      prefix = randomPrefix();
      prefixes.set(suffix, prefix);
    }
    return prefix + suffix;
  });
}

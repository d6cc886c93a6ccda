import type { Kysely } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock, type App } from '@playstack/server-kit';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { histogramRelativeError, LatencyHistogram, minTrackedMs } from '../src/storage/latency-histogram.js';
import { normalizeStatement, statementHash } from '../src/ingest/statement-normalizer.js';
import type { TelemetryDatabase, RollupFigures } from '../src/storage/storage-tables.js';
import { buildTestApp } from './support/test-app.js';
import { seededRandom as seeded } from '@playstack/server-kit/testing';

const legacyKey = 'rollup-test-key-0123456789';
const now = Date.parse('2026-11-21T12:00:00.000Z');

interface Sent {
  service: string;
  environment: string;
  occurrence: Record<string, any>;
}

/**
 * A random data set: services calling each other (parent and child in different envelopes, in
 * either order), database calls with varying literals, tenants, errors, durations spread over
 * five orders of magnitude and starts over ten minutes.
 */
function randomDataSet(seed: number, traces: number): Sent[][] {
  const random = seeded(seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  const hex = (length: number) => Array.from({ length }, () => Math.floor(random() * 16).toString(16)).join('');
  const services = ['gateway', 'orders', 'payments', 'stock'];
  const environments = ['production', 'staging'];
  const sent: Sent[] = [];
  for (let t = 0; t < traces; t++) {
    const traceId = `1${hex(31)}`;
    const environment = pick(environments);
    const startedAt = now - Math.floor(random() * 10 * 60_000);
    const base = () => ({
      traceId,
      startedAt: new Date(startedAt + Math.floor(random() * 1000)).toISOString(),
      durationMs: Math.round(10 ** (random() * 5 - 1) * 1000) / 1000,
      status: random() < 0.15 ? 'error' : 'ok',
      ...(random() < 0.5 ? { tenantId: pick(['acme', 'globex', 'initech']) } : {}),
    });
    const caller = pick(services);
    const rootSpan = `a${hex(15)}`;
    sent.push({ service: caller, environment, occurrence: { ...base(), spanId: rootSpan, operation: pick(['GET /a', 'POST /b', 'GET /c']), kind: 'server' } });
    const clientSpan = `b${hex(15)}`;
    const viaPeer = random() < 0.3;
    const callee = pick(services.filter((service) => service !== caller));
    sent.push({
      service: caller,
      environment,
      occurrence: { ...base(), spanId: clientSpan, parentSpanId: rootSpan, operation: 'call', kind: 'client', ...(viaPeer ? { peer: { service: callee } } : {}) },
    });
    sent.push({ service: callee, environment, occurrence: { ...base(), spanId: `c${hex(15)}`, parentSpanId: clientSpan, operation: 'handle', kind: 'server' } });
    // Internal work: a step under the request, and sometimes a job of the callee's own (a root).
    sent.push({ service: caller, environment, occurrence: { ...base(), spanId: `e${hex(15)}`, parentSpanId: rootSpan, operation: 'render', kind: 'internal' } });
    if (random() < 0.3) sent.push({ service: callee, environment, occurrence: { ...base(), traceId: `2${hex(31)}`, spanId: `f${hex(15)}`, operation: 'render', kind: 'internal' } });
    if (random() < 0.6) {
      const statement = pick([
        (n: number) => `SELECT * FROM stock WHERE sku = ${n}`,
        (n: number) => `UPDATE orders SET total = ${n}.25 WHERE id = '${n}'`,
        (n: number) => `DELETE FROM carts WHERE id IN (${n}, ${n + 1})`,
      ])(Math.floor(random() * 1000));
      sent.push({
        service: callee,
        environment,
        occurrence: { ...base(), spanId: `d${hex(15)}`, operation: 'query', kind: 'client', db: { system: pick(['postgresql', 'mysql']), statement } },
      });
    }
  }
  // Shuffle, so children often arrive before their parents, then cut into envelopes per service.
  for (let i = sent.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [sent[i], sent[j]] = [sent[j]!, sent[i]!];
  }
  const envelopes: Sent[][] = [];
  for (let offset = 0; offset < sent.length; offset += 40) envelopes.push(sent.slice(offset, offset + 40));
  return envelopes;
}

function expectQuantilesWithinBound(histogramText: string, durations: number[]): void {
  const histogram = LatencyHistogram.decode(histogramText);
  expect(histogram.count).toBe(durations.length);
  const sorted = [...durations].sort((a, b) => a - b);
  for (const q of [0.5, 0.95, 0.99]) {
    const exact = sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1]!;
    const estimate = histogram.quantile(q)!;
    if (exact <= minTrackedMs) expect(estimate).toBe(0);
    else expect(Math.abs(estimate - exact) / exact).toBeLessThanOrEqual(histogramRelativeError + 1e-9);
  }
}

type Group = { count: number; errors: number; sum: number; max: number; durations: number[] };
function groupBy<T>(items: T[], key: (item: T) => string | undefined, duration: (item: T) => number, isError: (item: T) => boolean): Map<string, Group> {
  const groups = new Map<string, Group>();
  for (const item of items) {
    const id = key(item);
    if (id === undefined) continue;
    const group = groups.get(id) ?? { count: 0, errors: 0, sum: 0, max: 0, durations: [] };
    group.count += 1;
    if (isError(item)) group.errors += 1;
    group.sum += duration(item);
    group.max = Math.max(group.max, duration(item));
    group.durations.push(duration(item));
    groups.set(id, group);
  }
  return groups;
}

function expectRollupsEqual<R extends RollupFigures>(rollups: R[], keyOf: (row: R) => string, expected: Map<string, Group>): void {
  expect(rollups.length).toBe(expected.size);
  for (const row of rollups) {
    const group = expected.get(keyOf(row));
    expect(group, `no raw rows for rollup ${keyOf(row)}`).toBeDefined();
    expect(Number(row.count)).toBe(group!.count);
    expect(Number(row.error_count)).toBe(group!.errors);
    expect(row.duration_sum_ms).toBeCloseTo(group!.sum, 6);
    expect(row.duration_max_ms).toBe(group!.max);
    expectQuantilesWithinBound(row.histogram, group!.durations);
  }
}

describeEachDatabase('rollups written at ingest time', (database) => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp(database(), { SERVICE_API_KEY: legacyKey, INGEST_RATE_LIMIT_PER_SECOND: '100000' }, { clock: new ManualClock(now) });
  });
  afterAll(async () => {
    await app.close();
  });

  it('equal the figures computed from the raw rows of a random data set', async () => {
    const envelopes = randomDataSet(20261121, 400);
    // Several envelopes at a time, so some share a transaction and some merge into stored rows.
    for (let offset = 0; offset < envelopes.length; offset += 4) {
      const responses = await Promise.all(
        envelopes.slice(offset, offset + 4).flatMap((batch) =>
          [...new Set(batch.map((item) => `${item.service}|${item.environment}`))].map((resource) => {
            const [service, environment] = resource.split('|');
            const occurrences = batch.filter((item) => item.service === service && item.environment === environment).map((item) => item.occurrence);
            return app.inject({
              method: 'POST',
              url: '/api/v1/ingest',
              headers: { authorization: `Bearer ${legacyKey}`, 'content-type': 'application/json' },
              payload: JSON.stringify({ protocol: 1, sentAt: new Date(now).toISOString(), resource: { service, environment }, occurrences }),
            });
          }),
        ),
      );
      for (const response of responses) expect(response.json().rejected).toEqual({ occurrences: 0, logs: 0 });
    }

    const db = app.database.db as Kysely<TelemetryDatabase>;
    const raw = await db.selectFrom('occurrences').selectAll().execute();
    expect(raw.length).toBe(envelopes.flat().length);
    const minute = (row: { started_at: number }) => Math.floor(Number(row.started_at) / 60_000) * 60_000;
    const duration = (row: { duration_ms: number }) => row.duration_ms;
    const isError = (row: { status: string }) => row.status === 'error';

    // The span role by its definition: entry (server, consumer), root (internal without a parent), child.
    const role = (row: { kind: string; parent_span_id: string | null }) =>
      row.kind === 'server' || row.kind === 'consumer' ? 'entry' : row.kind === 'internal' && row.parent_span_id === null ? 'root' : 'child';
    const operationKey = (row: { service: string; environment: string; operation: string; kind: string }) => [row.service, row.environment, row.operation, row.kind];
    const operationRollups = await db.selectFrom('operation_rollups').selectAll().execute();
    expect(new Set(operationRollups.map((row) => row.span_role))).toEqual(new Set(['entry', 'root', 'child']));
    expectRollupsEqual(
      operationRollups,
      (row) => [Number(row.minute), ...operationKey(row), row.span_role].join('|'),
      groupBy(raw, (row) => [minute(row), ...operationKey(row), role(row)].join('|'), duration, isError),
    );
    const errorsByCell = groupBy(raw.filter(isError), (row) => [minute(row), ...operationKey(row), role(row)].join('|'), duration, isError);
    for (const row of operationRollups) {
      const errors = errorsByCell.get([Number(row.minute), ...operationKey(row), row.span_role].join('|'));
      if (errors) expectQuantilesWithinBound(row.error_histogram, errors.durations);
      else expect(row.error_histogram).toBe('');
    }
    expectRollupsEqual(
      await db.selectFrom('tenant_rollups').selectAll().execute(),
      (row) => [Number(row.minute), row.tenant_id, row.service, row.environment].join('|'),
      groupBy(raw, (row) => (row.tenant_id === null ? undefined : [minute(row), row.tenant_id, row.service, row.environment].join('|')), duration, isError),
    );
    const statements = await db.selectFrom('statement_rollups').selectAll().execute();
    expectRollupsEqual(
      statements,
      (row) => [Number(row.minute), row.service, row.environment, row.db_system, row.statement_hash].join('|'),
      groupBy(
        raw,
        (row) => (row.db_statement === null ? undefined : [minute(row), row.service, row.environment, row.db_system, statementHash(normalizeStatement(row.db_system!, row.db_statement))].join('|')),
        duration,
        isError,
      ),
    );
    expect(new Set(statements.map((row) => row.statement))).toEqual(
      new Set(['SELECT * FROM stock WHERE sku = ?', 'UPDATE orders SET total = ? WHERE id = ?', 'DELETE FROM carts WHERE id IN (?)']),
    );

    // Edges from raw rows: declared by client spans (peer, else database), and parent/child pairs
    // across services whose parent declares none.
    const bySpan = new Map(raw.map((row) => [`${row.trace_id}/${row.span_id}`, row]));
    const declares = (row: (typeof raw)[number]) => row.kind === 'client' && (row.peer_service !== null || row.db_system !== null);
    const edges: Array<{ key: string; duration: number; error: boolean }> = [];
    for (const row of raw) {
      if (row.kind === 'client' && row.peer_service !== null) edges.push({ key: [minute(row), row.environment, row.service, row.peer_service, 'service'].join('|'), duration: row.duration_ms, error: isError(row) });
      else if (row.kind === 'client' && row.db_system !== null) edges.push({ key: [minute(row), row.environment, row.service, row.db_system, 'database'].join('|'), duration: row.duration_ms, error: isError(row) });
      const parent = row.parent_span_id === null ? undefined : bySpan.get(`${row.trace_id}/${row.parent_span_id}`);
      if (parent && parent.service !== row.service && !declares(parent)) {
        edges.push({ key: [minute(row), row.environment, parent.service, row.service, 'service'].join('|'), duration: row.duration_ms, error: isError(row) });
      }
    }
    expect(edges.some((edge) => edge.key.endsWith('|service') && !edge.key.includes('postgresql'))).toBe(true);
    expectRollupsEqual(
      await db.selectFrom('dependency_rollups').selectAll().execute(),
      (row) => [Number(row.minute), row.environment, row.source_service, row.target, row.target_kind].join('|'),
      groupBy(edges, (edge) => edge.key, (edge) => edge.duration, (edge) => edge.error),
    );
  });
});

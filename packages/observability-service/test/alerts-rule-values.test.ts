import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock, type App } from '@playstack/server-kit';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { withDefaults, type AlertRuleSpec } from '../src/alerts/alert-rule.js';
import { insertRule, listEvents, newRuleId } from '../src/alerts/alert-store.js';
import { ruleSeries } from '../src/alerts/alert-series.js';
import { sharedEvidenceReads, sqlAlertReads, type AlertReads } from '../src/telemetry/alert-reads.js';
import { readRuleInputs } from '../src/alerts/alert-values.js';
import { sqlTelemetryDatabase } from '../src/telemetry/sql-telemetry-database.js';
import { alertTestEnv, alertTestKey, failureStack } from './support/alert-data.js';
import { envelope, minimalOccurrence } from './support/envelopes.js';
import { buildTestApp } from './support/test-app.js';

const minute = 60_000;
const start = Date.parse('2026-11-12T08:00:00.000Z');
const at = (n: number) => start + n * minute;
const apdexThresholdMs = 300;
const apdexThresholds = async (services: readonly string[]) => new Map(services.map((service) => [service, apdexThresholdMs]));

interface Spans {
  service: string;
  environment: string;
  count: number;
  operation: string;
  kind?: string;
  tenantId?: string;
  failing?: number;
  durationMs: number;
}

/** `count` spans of one service and environment in minute `n`, the first `failing` of them failing; client spans get a parent. */
async function send(app: App, n: number, spans: Spans): Promise<void> {
  const occurrences = Array.from({ length: spans.count }, (_, i) =>
    minimalOccurrence(new Date(at(n) + 1000 + i * 100).toISOString(), {
      operation: spans.operation,
      kind: spans.kind ?? 'server',
      durationMs: spans.durationMs,
      status: i < (spans.failing ?? 0) ? 'error' : 'ok',
      ...(i < (spans.failing ?? 0) ? { error: { type: 'PaymentDeclined', message: 'card declined', stack: failureStack } } : {}),
      ...(spans.kind === 'client' ? { parentSpanId: 'aaaaaaaaaaaaaaaa' } : {}),
      ...(spans.tenantId ? { tenantId: spans.tenantId } : {}),
    }),
  );
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/ingest',
    headers: { authorization: `Bearer ${alertTestKey}` },
    payload: envelope(occurrences, { service: spans.service, environment: spans.environment }),
  });
  expect(response.statusCode, response.body).toBe(202);
}

const base = { name: 'watched', comparison: '>' as const, threshold: 0, windowMinutes: 1, forMinutes: 0, channels: [] as string[] };

describeEachDatabase('alert rule values: service, operation, environment and tenant filters combined', (database) => {
  let app: App;
  const valueOf = async (spec: Partial<AlertRuleSpec> & Pick<AlertRuleSpec, 'metric' | 'service'>) =>
    (await ruleSeries(sqlAlertReads(sqlTelemetryDatabase(app).db), withDefaults({ ...base, ...spec }, 'r', 'api'), at(0), at(0), apdexThresholds)).points[0]!.value;

  beforeAll(async () => {
    app = await buildTestApp(database(), alertTestEnv, { clock: new ManualClock(at(5)) });
    // checkout, production: tenant t1's 10 requests (2 failing, 100 ms) and its 10 outgoing calls (1 s, not requests);
    // tenant t2's 5 health checks (10 ms); staging: tenant t1's 4 failing requests (500 ms); search: tenant t1's 7 requests.
    await send(app, 0, { service: 'checkout', environment: 'production', count: 10, failing: 2, operation: 'POST /checkout', tenantId: 't1', durationMs: 100 });
    await send(app, 0, { service: 'checkout', environment: 'production', count: 10, operation: 'call payments', kind: 'client', tenantId: 't1', durationMs: 1000 });
    await send(app, 0, { service: 'checkout', environment: 'production', count: 5, operation: 'GET /status', tenantId: 't2', durationMs: 10 });
    await send(app, 0, { service: 'checkout', environment: 'staging', count: 4, failing: 4, operation: 'POST /checkout', tenantId: 't1', durationMs: 500 });
    await send(app, 0, { service: 'search', environment: 'production', count: 7, operation: 'GET /search', tenantId: 't1', durationMs: 50 });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('request rate counts the requests (entry spans) the filters select, with or without a tenant', async () => {
    expect(await valueOf({ metric: 'request-rate', service: 'checkout' })).toBe(19);
    expect(await valueOf({ metric: 'request-rate', service: 'checkout', environment: 'production' })).toBe(15);
    expect(await valueOf({ metric: 'request-rate', service: 'checkout', operation: 'POST /checkout' })).toBe(14);
    expect(await valueOf({ metric: 'request-rate', service: 'checkout', operation: 'POST /checkout', environment: 'production' })).toBe(10);
    expect(await valueOf({ metric: 'request-rate', service: 'checkout', operation: 'call payments' })).toBe(10);
    expect(await valueOf({ metric: 'request-rate', service: 'checkout', tenant: 't1' })).toBe(14);
    expect(await valueOf({ metric: 'request-rate', service: 'checkout', tenant: 't1', environment: 'production' })).toBe(10);
    expect(await valueOf({ metric: 'request-rate', service: 'checkout', tenant: 't2' })).toBe(5);
    expect(await valueOf({ metric: 'request-rate', service: 'checkout', tenant: 't2', environment: 'staging' })).toBe(0);
    expect(await valueOf({ metric: 'request-rate', service: 'search', tenant: 't1' })).toBe(7);
    expect(await valueOf({ metric: 'request-rate', service: 'search', tenant: 't2' })).toBe(0);
  });

  it('error rate divides the failing requests by the requests of the same filters', async () => {
    expect(await valueOf({ metric: 'error-rate', service: 'checkout' })).toBe(31.579);
    expect(await valueOf({ metric: 'error-rate', service: 'checkout', environment: 'staging' })).toBe(100);
    expect(await valueOf({ metric: 'error-rate', service: 'checkout', operation: 'GET /status' })).toBe(0);
    expect(await valueOf({ metric: 'error-rate', service: 'checkout', tenant: 't1' })).toBe(42.857);
    expect(await valueOf({ metric: 'error-rate', service: 'checkout', tenant: 't1', environment: 'production' })).toBe(20);
    expect(await valueOf({ metric: 'error-rate', service: 'search', tenant: 't1' })).toBe(0);
    expect(await valueOf({ metric: 'error-rate', service: 'search', tenant: 't2' })).toBeNull();
  });

  it('latency percentiles and Apdex read the same requests (a tenant\'s outgoing calls are not its latency)', async () => {
    const near = (expected: number) => expect.closeTo(expected, -Math.log10(expected * 0.05));
    expect(await valueOf({ metric: 'latency-p99', service: 'checkout', tenant: 't1', environment: 'production' })).toEqual(near(100));
    expect(await valueOf({ metric: 'latency-p99', service: 'checkout', tenant: 't1' })).toEqual(near(500));
    expect(await valueOf({ metric: 'latency-p50', service: 'checkout', tenant: 't2' })).toEqual(near(10));
    expect(await valueOf({ metric: 'latency-p95', service: 'checkout', environment: 'staging' })).toEqual(near(500));
    expect(await valueOf({ metric: 'latency-p50', service: 'checkout', operation: 'call payments' })).toEqual(near(1000));
    expect(await valueOf({ metric: 'apdex', service: 'checkout', operation: 'GET /status' })).toBe(1);
    expect(await valueOf({ metric: 'apdex', service: 'checkout', environment: 'staging' })).toBe(0);
    expect(await valueOf({ metric: 'apdex', service: 'checkout', environment: 'production' })).toBe(0.8667);
  });

  it('rules read together, sharing scopes and windows, get the values each gets alone', async () => {
    const specs: Array<Partial<AlertRuleSpec> & Pick<AlertRuleSpec, 'metric' | 'service'>> = [
      { metric: 'request-rate', service: 'checkout' },
      { metric: 'error-rate', service: 'checkout' },
      { metric: 'latency-p95', service: 'checkout', environment: 'staging' },
      { metric: 'request-rate', service: 'checkout', environment: 'production', windowMinutes: 3 },
      { metric: 'apdex', service: 'checkout', operation: 'GET /status' },
      { metric: 'request-rate', service: 'checkout', operation: 'call payments', windowMinutes: 2 },
      { metric: 'error-rate', service: 'checkout', tenant: 't1', environment: 'production' },
      { metric: 'request-rate', service: 'search', tenant: 't1' },
      { metric: 'new-error-group', service: 'checkout', environment: 'staging' },
    ];
    const rules = specs.map((spec, i) => withDefaults({ ...base, ...spec }, `r${i}`, 'api'));
    const together = await readRuleInputs(sqlAlertReads(sqlTelemetryDatabase(app).db), rules, at(0), at(1), apdexThresholds);
    for (const [i, spec] of specs.entries()) {
      const alone = await ruleSeries(sqlAlertReads(sqlTelemetryDatabase(app).db), rules[i]!, at(0), at(1), apdexThresholds);
      expect({ spec, values: [together.valueAt(rules[i]!, at(0)), together.valueAt(rules[i]!, at(1))] }).toEqual({ spec, values: alone.points.map((point) => point.value) });
    }
    expect(together.valueAt(rules[0]!, at(0))).toBe(19);
  });

  it('evidence reads with the same arguments in one evaluation share one query', async () => {
    const calls: string[] = [];
    const sql = sqlAlertReads(sqlTelemetryDatabase(app).db);
    const counted: AlertReads = {
      ...sql,
      exampleTraces: (...args) => (calls.push('traces'), sql.exampleTraces(...args)),
      topErrorGroupId: (...args) => (calls.push('top'), sql.topErrorGroupId(...args)),
      errorGroupDetails: (...args) => (calls.push('group'), sql.errorGroupDetails(...args)),
    };
    const shared = sharedEvidenceReads(counted);
    const filter = { service: 'checkout', environment: 'production' };
    const first = await shared.exampleTraces(filter, at(0), at(1), true);
    expect(first.map((trace) => trace.status)).toEqual(['error', 'error']);
    expect(await shared.exampleTraces({ ...filter }, at(0), at(1), true)).toEqual(first);
    expect(await shared.exampleTraces(filter, at(0), at(1), false)).toHaveLength(3);
    const top = await shared.topErrorGroupId(filter, at(0), at(1));
    expect(top).toBeDefined();
    expect(await shared.topErrorGroupId({ service: 'checkout', environment: 'production', operation: undefined }, at(0), at(1))).toBe(top);
    expect((await shared.errorGroupDetails(top!))?.type).toBe('PaymentDeclined');
    await shared.errorGroupDetails(top!);
    expect(calls).toEqual(['traces', 'traces', 'top', 'group']);
  });

  it('new error groups count the groups of the service that occurred in the environment', async () => {
    expect(await valueOf({ metric: 'new-error-group', service: 'checkout' })).toBe(1);
    expect(await valueOf({ metric: 'new-error-group', service: 'checkout', environment: 'staging' })).toBe(1);
    expect(await valueOf({ metric: 'new-error-group', service: 'checkout', environment: 'qa' })).toBe(0);
    expect(await valueOf({ metric: 'new-error-group', service: 'search' })).toBe(0);
  });
});

describeEachDatabase('new-or-regressed error group rules caught up after the fact', (database) => {
  const clock = new ManualClock(at(0));
  let app: App;
  afterAll(async () => {
    await app?.close();
  });

  it('count a group at the minute it regressed then, from its status history, not from its status now', async () => {
    app = await buildTestApp(database(), alertTestEnv, { clock });
    expect(await app.alerts.evaluator.runOnce()).toEqual([at(-1)]);
    const error = (n: number) => send(app, n, { service: 'checkout', environment: 'production', count: 1, failing: 1, operation: 'POST /checkout', durationMs: 20 });
    const setStatus = async (n: number, status: 'resolved' | 'open') => {
      const group = await app.database.db.selectFrom('error_groups').select('group_id').executeTakeFirstOrThrow();
      await app.telemetry.setErrorGroupStatus(group.group_id, status, 'user-1', at(n) + 30_000);
    };
    // New at 0; resolved at 2, regressed at 5 (seen again at 6: not a second regression); resolved at 8, regressed at 10;
    // resolved at 12 and reopened at 13 before it recurs at 14: not a regression.
    await error(0);
    await setStatus(2, 'resolved');
    await error(5);
    await error(6);
    await setStatus(8, 'resolved');
    await error(10);
    await setStatus(12, 'resolved');
    await setStatus(13, 'open');
    await error(14);
    const ruleId = newRuleId();
    await insertRule(app.database.db, { id: ruleId, source: 'api', spec: { ...base, name: 'new or regressed', metric: 'new-error-group', service: 'checkout' } }, at(0), null);

    // Evaluated only now, every minute at once (a restart's catch-up).
    clock.set(at(16));
    expect((await app.alerts.evaluator.runOnce()).map((m) => (m - start) / minute)).toEqual([...Array(16).keys()]);
    const events = (await listEvents(app.database.db, { ruleId, limit: 100 })).reverse();
    expect(events.filter((event) => event.to === 'firing').map((event) => [(event.minute - start) / minute, event.value])).toEqual([
      [0, 1],
      [5, 1],
      [10, 1],
    ]);
    const series = await ruleSeries(sqlAlertReads(sqlTelemetryDatabase(app).db), withDefaults({ ...base, metric: 'new-error-group', service: 'checkout', windowMinutes: 3 }, 'r', 'api'), at(0), at(15), apdexThresholds);
    expect(series.points.map((point) => point.value)).toEqual([1, 1, 1, 0, 0, 1, 1, 1, 0, 0, 1, 1, 1, 0, 0, 0]);
  }, 180_000); // a service start, five envelopes and sixteen minutes caught up: 52 s at load average 16
});

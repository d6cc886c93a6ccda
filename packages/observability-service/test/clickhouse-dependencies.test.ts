import { describe, expect, it } from 'vitest';
import { ManualClock } from '@playstack/server-kit';
import { seededRandom } from '@playstack/server-kit/testing';
import type { DependenciesResponse } from '../src/query/query-schemas.js';
import type { TelemetryRead } from '../src/query/read-query.js';
import type { NewOccurrence } from '../src/storage/storage-tables.js';
import { clickHouseDependencies, dependencyResolutionState, planDependencyRead, type DependencyResolutionState } from '../src/telemetry/clickhouse/clickhouse-dependencies.js';
import { defaultDependencySettleMs, resolveClickHouseDependencies } from '../src/telemetry/clickhouse/clickhouse-dependency-resolver.js';
import { ClickHouseTelemetry } from '../src/telemetry/clickhouse/clickhouse-telemetry.js';
import { ClickHouseTelemetryStore } from '../src/telemetry/clickhouse/clickhouse-telemetry-store.js';
import { dayMs, minuteMs } from '../src/time-units.js';
import { clickHouseStoreForSuite } from './support/clickhouse-store.js';
import { generatedRow } from './support/generated-occurrences.js';

const now = Date.parse('2026-11-21T12:00:00.000Z');
const hourMs = 60 * minuteMs;

const hex = (random: () => number, length: number) => Array.from({ length }, () => Math.floor(random() * 16).toString(16)).join('');

/**
 * Traces of calls over the three days before `nowMs`: a gateway request (declaring nothing)
 * whose child is an orders request (an edge found by joining parent and child), orders calling
 * payments (declared, so the payments request under it adds nothing) and its database
 * (declared); the child starts up to 90 s after its parent, so parent and child often fall in
 * different minutes, and some traces are staging's. `childAfterMs` moves the child (and the
 * calls under it) further from its parent: a long trace.
 */
function callTraces(nowMs: number, traces: number, seed: number, fromMs = nowMs - 3 * dayMs, toMs = nowMs, childAfterMs = 0): NewOccurrence[] {
  const random = seededRandom(seed);
  const rows: NewOccurrence[] = [];
  for (let i = 0; i < traces; i++) {
    const traceId = hex(random, 32);
    const environment = random() < 0.8 ? 'production' : 'staging';
    const rootStart = fromMs + Math.floor(random() * (toMs - fromMs - 2 * minuteMs));
    const ids = Array.from({ length: 5 }, () => hex(random, 16));
    const span = (service: string, index: number, parent: number | undefined, offsetMs: number, extra: Record<string, unknown> = {}) =>
      generatedRow(
        { service, environment },
        {
          traceId,
          spanId: ids[index]!,
          ...(parent === undefined ? {} : { parentSpanId: ids[parent]! }),
          operation: `${service} ${index}`,
          kind: 'server',
          startedAt: new Date(rootStart + offsetMs).toISOString(),
          durationMs: 1 + Math.round(random() * 2_000),
          status: random() < 0.1 ? 'error' : 'ok',
          ...extra,
        },
      );
    const childOffset = childAfterMs + Math.floor(random() * 90_000);
    rows.push(
      span('gateway', 0, undefined, 0),
      span('orders', 1, 0, childOffset),
      span('orders', 2, 1, childOffset + 5, { kind: 'client', peer: { service: 'payments' } }),
      span('payments', 3, 2, childOffset + 6),
      span('orders', 4, 1, childOffset + 7, { kind: 'client', db: { system: 'postgresql', statement: 'SELECT 1' } }),
    );
  }
  return rows;
}

const reads: TelemetryRead[] = [
  { range: { fromMs: now - 4 * dayMs, toMs: now + minuteMs }, filters: {} },
  { range: { fromMs: now - 30 * hourMs + 12_345, toMs: now - 5 * hourMs - 4_321 }, filters: {} },
  { range: { fromMs: now - 4 * dayMs, toMs: now + minuteMs }, filters: { environment: 'staging' } },
  { range: { fromMs: now - 2 * dayMs, toMs: now }, filters: { service: 'payments' } },
];

async function answers(store: ClickHouseTelemetry): Promise<DependenciesResponse[]> {
  return Promise.all(reads.map((read) => clickHouseDependencies(store, read)));
}

async function planOf(store: ClickHouseTelemetry, fromMs: number, toMs: number) {
  return planDependencyRead(fromMs, toMs, await dependencyResolutionState(store, fromMs, toMs));
}

describe('dependency reads: resolved buckets and raw minutes', () => {
  const minutes = (entries: Array<[number, number]>) => new Map(entries);
  const day = Date.parse('2026-11-20T00:00:00.000Z');
  const state = (lastReceived: Map<number, number>, covered: Array<[number, number, number]>): DependencyResolutionState => ({
    lastReceived,
    covered: new Map(covered.map(([size, bucket, receipt]) => [`${size}:${bucket}`, receipt])),
  });

  it('reads a resolved day as one bucket and skips minutes without spans', () => {
    const plan = planDependencyRead(day - 2 * minuteMs, day + dayMs + minuteMs, state(minutes([[day + 5 * minuteMs, 100], [day + 20 * hourMs, 200]]), [[dayMs, day, 200]]));
    expect(plan).toEqual({ resolved: [{ sizeMs: dayMs, fromMs: day, toMs: day + dayMs }], live: [] });
  });

  it('joins the raw spans of a minute that received spans after its resolution, and reads the rest of its day from coarser buckets', () => {
    const late = day + 3 * hourMs + 20 * minuteMs;
    const lastReceived = minutes([[day + minuteMs, 100], [late, 500]]);
    const covered: Array<[number, number, number]> = [[dayMs, day, 300], [hourMs, day, 300], [minuteMs, day + minuteMs, 300], [minuteMs, late, 300]];
    for (let hour = 1; hour < 24; hour++) covered.push([hourMs, day + hour * hourMs, 300]);
    for (let quarter = 0; quarter < 4; quarter++) covered.push([15 * minuteMs, day + 3 * hourMs + quarter * 15 * minuteMs, 300]);
    const plan = planDependencyRead(day, day + dayMs, state(lastReceived, covered));
    expect(plan.live).toEqual([{ fromMs: late, toMs: late + minuteMs }]);
    expect(plan.resolved).toEqual([{ sizeMs: hourMs, fromMs: day, toMs: day + hourMs }]);
    // Another minute with spans in the late minute's quarter has no resolution of its own: joined too.
    // An hour with spans older than its resolution is read resolved.
    const withSpans = minutes([...lastReceived, [day + 3 * hourMs + 16 * minuteMs, 250], [day + 5 * hourMs, 250]]);
    const fuller = planDependencyRead(day, day + dayMs, state(withSpans, covered));
    // One run: the minutes between have no spans.
    expect(fuller.live).toEqual([{ fromMs: day + 3 * hourMs + 16 * minuteMs, toMs: late + minuteMs }]);
    expect(fuller.resolved).toEqual([
      { sizeMs: hourMs, fromMs: day, toMs: day + hourMs },
      { sizeMs: hourMs, fromMs: day + 5 * hourMs, toMs: day + 6 * hourMs },
    ]);
  });

  it('joins every minute with spans at read time where nothing is resolved, as one run across minutes without spans', () => {
    const plan = planDependencyRead(day, day + 10 * minuteMs, state(minutes([[day + 2 * minuteMs, 1], [day + 3 * minuteMs, 1], [day + 7 * minuteMs, 1]]), []));
    expect(plan).toEqual({ resolved: [], live: [{ fromMs: day + 2 * minuteMs, toMs: day + 8 * minuteMs }] });
  });
});

describe('ClickHouse dependency edges resolved once spans settle', () => {
  const clock = new ManualClock(now);
  const suite = clickHouseStoreForSuite(clock);

  it('answers the same from the resolved edges as from the raw spans, over whole days and ragged ends, and only once the spans settled', async () => {
    const { store } = suite();
    await store.write(callTraces(now, 1_500, 3));
    const expected = await answers(store);
    const edges = (answer: DependenciesResponse) => answer.edges.map((edge) => `${edge.source}>${edge.target}`).sort();
    expect(edges(expected[0]!)).toEqual(['gateway>orders', 'orders>payments', 'orders>postgresql']);
    expect(expected[0]!.edges.find((edge) => edge.target === 'orders')!.count).toBe(1_500);
    expect(expected[2]!.edges.length).toBe(3);
    expect(expected[3]!.edges.map((edge) => edge.target)).toEqual(['payments']);

    // Just written: nothing settled, nothing resolved.
    expect(await resolveClickHouseDependencies(store, clock.now())).toEqual({ minutes: 0, buckets: 0 });
    clock.advance(defaultDependencySettleMs);
    // A pass resolves a bounded share, newest first: the last 12 hours after the first pass, the oldest minutes later.
    const first = await resolveClickHouseDependencies(store, clock.now());
    expect(first.minutes).toBeGreaterThan(500);
    expect((await planOf(store, now - 12 * hourMs, now)).live).toEqual([]);
    expect((await planOf(store, now - 3 * dayMs, now - 2 * dayMs)).live.length).toBeGreaterThan(0);
    const passes = [first];
    for (let pass = await resolveClickHouseDependencies(store, clock.now()); pass.minutes > 0; pass = await resolveClickHouseDependencies(store, clock.now())) passes.push(pass);
    expect(passes.length).toBeGreaterThan(1);
    expect(passes.reduce((total, pass) => total + pass.buckets, 0)).toBeGreaterThan(72);
    const plan = await planOf(store, now - 4 * dayMs, now + minuteMs);
    expect(plan.live).toEqual([]);
    expect(plan.resolved.map((part) => part.sizeMs)).toContain(dayMs);
    expect(await answers(store)).toEqual(expected);
    // A second pass finds nothing new.
    expect(await resolveClickHouseDependencies(store, clock.now())).toEqual({ minutes: 0, buckets: 0 });
    clock.set(now);
  });

  it('counts spans that arrive in a resolved minute at once, from the raw spans until that minute is resolved again', async () => {
    const { store } = suite();
    const before = await answers(store);
    const late = callTraces(now, 40, 11, now - 2 * dayMs - 3 * hourMs, now - 2 * dayMs - 2 * hourMs);
    clock.advance(defaultDependencySettleMs + minuteMs);
    await store.write(late);
    const after = await answers(store);
    const callsOf = (answer: DependenciesResponse, target: string) => answer.edges.find((edge) => edge.target === target)?.count ?? 0;
    expect(callsOf(after[0]!, 'orders')).toBe(callsOf(before[0]!, 'orders') + 40);
    expect(callsOf(after[0]!, 'postgresql')).toBe(callsOf(before[0]!, 'postgresql') + 40);
    const plan = await planOf(store, now - 4 * dayMs, now + minuteMs);
    expect(plan.live.length).toBeGreaterThan(0);
    expect(plan.live.every((run) => run.fromMs >= now - 2 * dayMs - 3 * hourMs && run.toMs <= now - 2 * dayMs - 2 * hourMs + 2 * minuteMs)).toBe(true);

    clock.advance(defaultDependencySettleMs);
    const resolution = await resolveClickHouseDependencies(store, clock.now());
    expect(resolution.minutes).toBeGreaterThanOrEqual(30);
    expect(resolution.minutes).toBeLessThanOrEqual(80);
    expect((await planOf(store, now - 4 * dayMs, now + minuteMs)).live).toEqual([]);
    expect(await answers(store)).toEqual(after);
    clock.set(now);
  });

  it('counts copied spans landing in resolved minutes, though their receipts (from the store they were copied from) are older than the resolution', async () => {
    const { store } = suite();
    const windowFrom = now - dayMs - 2 * hourMs;
    const windowTo = windowFrom + 10 * minuteMs;
    // Received after the earlier tests' resolutions (a receipt is a later time than any resolution covered).
    clock.advance(minuteMs);
    await store.write(callTraces(now, 40, 31, windowFrom, windowTo));
    clock.advance(defaultDependencySettleMs);
    while ((await resolveClickHouseDependencies(store, clock.now())).minutes > 0);
    const before = await answers(store);
    expect((await planOf(store, now - 4 * dayMs, now + minuteMs)).live).toEqual([]);
    // As telemetry:copy writes them: each row with the receipt it had where it came from.
    const copied = callTraces(now, 25, 29, windowFrom, windowTo).map((row) => ({ ...row, received_at: now - 5 * dayMs }));
    await store.write(copied);
    const after = await answers(store);
    const callsOf = (answer: DependenciesResponse) => answer.edges.find((edge) => edge.target === 'orders')?.count ?? 0;
    expect(callsOf(after[0]!)).toBe(callsOf(before[0]!) + 25);
    clock.advance(defaultDependencySettleMs);
    expect((await resolveClickHouseDependencies(store, clock.now())).minutes).toBeGreaterThan(0);
    expect((await planOf(store, now - 4 * dayMs, now + minuteMs)).live).toEqual([]);
    expect(await answers(store)).toEqual(after);
    clock.set(now);
  });

  it('counts each call once when several instances resolve the same minutes at the same time', async () => {
    const { store, url } = suite();
    const other = new ClickHouseTelemetry({ url, database: store.database, clock, maxRowsPerInsert: 10_000 });
    try {
      await store.write(callTraces(now, 300, 17, now - 20 * hourMs, now - 19 * hourMs));
      const expected = await answers(store);
      clock.advance(defaultDependencySettleMs + 2 * minuteMs);
      // Started together, both find the same minutes unresolved (unless one wrote its records first).
      const [first, second] = await Promise.all([resolveClickHouseDependencies(store, clock.now()), resolveClickHouseDependencies(other, clock.now())]);
      expect(first.minutes + second.minutes).toBeGreaterThan(0);
      expect((await planOf(store, now - 4 * dayMs, now + minuteMs)).live).toEqual([]);
      expect(await answers(store)).toEqual(expected);
      expect(await answers(other)).toEqual(expected);
      await store.optimizeForTests();
      expect(await answers(store)).toEqual(expected);
    } finally {
      await other.close();
      clock.set(now);
    }
  });

  it('is what the store\'s upkeep does (maintain, which each instance runs every ROLLUP_TIER_INTERVAL_SECONDS)', async () => {
    const { store, url } = suite();
    const telemetry = new ClickHouseTelemetryStore({ url, database: store.database, clock, maxRowsPerInsert: 10_000 });
    try {
      await telemetry.write(callTraces(now, 20, 23, now - 6 * hourMs, now - 5 * hourMs));
      const expected = await telemetry.dependencies(reads[0]!);
      expect((await telemetry.maintain()).minutes).toBe(0);
      clock.advance(defaultDependencySettleMs);
      expect((await telemetry.maintain()).minutes).toBeGreaterThan(0);
      expect((await planOf(store, now - 4 * dayMs, now + minuteMs)).live).toEqual([]);
      expect(await telemetry.dependencies(reads[0]!)).toEqual(expected);
      const health = await telemetry.health(clock.now());
      if (!('rows' in health)) throw new Error(`ClickHouse did not answer: ${health.unreachable}`);
      expect(health.rows.dependencyRollups).toBeGreaterThan(0);
    } finally {
      await telemetry.close();
      clock.set(now);
    }
  });

  it('drops resolved edges with their day partitions', async () => {
    const { store } = suite();
    const cutoff = now - dayMs;
    await store.prune(cutoff);
    const [left] = await store.rows<{ n: string }>(`SELECT count() AS n FROM ${store.database}.dependency_edges WHERE bucket < ${cutoff - dayMs}`);
    const [resolutions] = await store.rows<{ n: string }>(`SELECT count() AS n FROM ${store.database}.dependency_resolutions WHERE bucket < ${cutoff - dayMs}`);
    expect(Number(left!.n)).toBe(0);
    expect(Number(resolutions!.n)).toBe(0);
    const [kept] = await store.rows<{ n: string }>(`SELECT count() AS n FROM ${store.database}.dependency_edges`);
    expect(Number(kept!.n)).toBeGreaterThan(0);
  });
});

describe('ClickHouse dependency reads of minutes whose parents lie outside the range', () => {
  const clock = new ManualClock(now);
  const suite = clickHouseStoreForSuite(clock);

  it('finds a long trace\'s parents 35 minutes before its children, skips children whose parent never came, and answers the same once resolved', async () => {
    const { store } = suite();
    const parentsFrom = now - dayMs;
    const childrenFrom = parentsFrom + 35 * minuteMs;
    const longTraces = callTraces(now, 60, 41, parentsFrom, parentsFrom + 4 * minuteMs, 35 * minuteMs);
    // Children whose parent never arrived (an uninstrumented caller), in the same minutes.
    const random = seededRandom(43);
    const orphans = callTraces(now, 30, 47, childrenFrom, childrenFrom + 4 * minuteMs)
      .filter((row) => row.service === 'orders' && row.parent_span_id !== null)
      .map((row) => ({ ...row, parent_span_id: hex(random, 16) }));
    await store.write([...longTraces, ...orphans]);
    // The range holds the children only.
    const read: TelemetryRead = { range: { fromMs: childrenFrom - 5 * minuteMs, toMs: childrenFrom + 10 * minuteMs }, filters: {} };
    expect((await planOf(store, read.range.fromMs, read.range.toMs)).live.length).toBeGreaterThan(0);
    const answer = await clickHouseDependencies(store, read);
    const callsTo = (target: string) => answer.edges.find((edge) => edge.target === target)?.count;
    expect(callsTo('orders')).toBe(60);
    expect(callsTo('payments')).toBe(60 + 30);

    clock.advance(defaultDependencySettleMs);
    while ((await resolveClickHouseDependencies(store, clock.now())).minutes > 0);
    expect((await planOf(store, read.range.fromMs, read.range.toMs)).live).toEqual([]);
    expect(await clickHouseDependencies(store, read)).toEqual(answer);
    clock.set(now);
  });
});

import { busiestEdgeFirst } from '../../query/dependencies-view.js';
import { MergedHistogram } from '../../query/latency-percentiles.js';
import type { DependenciesResponse } from '../../query/query-schemas.js';
import { rangeEcho, type TelemetryRead } from '../../query/read-query.js';
import { rollupMinuteBounds } from '../../query/rollup-aggregate.js';
import { minuteMs } from '../../time-units.js';
import { numberLiteral, stringLiteral } from './clickhouse-literal.js';
import { histogramText } from './clickhouse-rollups.js';
import { clickHouseTierSizesMs } from './clickhouse-migrations.js';
import { dayConditions } from './clickhouse-occurrences.js';
import type { ClickHouseTelemetry } from './clickhouse-telemetry.js';
import { dayOf } from './clickhouse-writer.js';

/** How far from its child's minutes a parent is looked for (before and after): an hour. */
export const dependencyParentWindowMs = 60 * minuteMs;

/** What a span declares it calls (storage/dependency-edges.ts `declaredTarget`), '' for nothing. */
const declaredTarget = `multiIf(
  kind NOT IN ('client', 'producer'), '',
  isNotNull(peer_service), assumeNotNull(peer_service),
  isNotNull(peer_address), assumeNotNull(peer_address),
  isNotNull(db_system) AND kind = 'client', assumeNotNull(db_system),
  '')`;
const declaredKind = `multiIf(isNotNull(peer_service), 'service', isNotNull(peer_address), 'address', 'database')`;

/** A run of whole minutes [fromMs, toMs), runs in time order. */
export interface MinuteRun {
  fromMs: number;
  toMs: number;
}

/** The minutes of `runs`, in order. */
export function minutesOf(runs: readonly MinuteRun[]): number[] {
  return runs.flatMap((run) => Array.from({ length: (run.toMs - run.fromMs) / minuteMs }, (_, i) => run.fromMs + i * minuteMs));
}

function orOf(terms: readonly string[]): string {
  return terms.length === 0 ? '0' : `(${terms.map((term) => `(${term})`).join(' OR ')})`;
}

/** Runs a statement names one by one; past that, their bounds and a list of their minutes. */
const runsNamedMax = 8;

const minuteExpression = `toUInt64(floor(started_at / ${minuteMs})) * ${minuteMs}`;

/**
 * Spans that started in `runs`, and the spans that started within `marginMs` of them: a range
 * per run for a few runs; for many (minutes scattered over a day), the bounds of them all and,
 * for the spans in them, the list of their minutes.
 */
function startedIn(runs: readonly MinuteRun[], marginMs: number): { spans: string; around: string } {
  if (runs.length <= runsNamedMax) {
    return {
      spans: orOf(runs.map((run) => dayConditions(run.fromMs, run.toMs).join(' AND '))),
      around: orOf(runs.map((run) => dayConditions(run.fromMs - marginMs, run.toMs + marginMs).join(' AND '))),
    };
  }
  const fromMs = runs[0]!.fromMs;
  const toMs = runs[runs.length - 1]!.toMs;
  return {
    spans: `${dayConditions(fromMs, toMs).join(' AND ')} AND ${minuteExpression} IN (${minutesOf(runs).map(numberLiteral).join(', ')})`,
    around: dayConditions(fromMs - marginMs, toMs + marginMs).join(' AND '),
  };
}

/**
 * The calls of the spans that started in `runs`, one row each (day, minute, environment, source,
 * target, target kind, error, latency bucket), as the SQL store's dependency rollups count them
 * (storage/dependency-edges.ts): the edges spans declare, plus a parent and child of one trace in
 * different services (the parent declaring nothing), with the child's figures, environment and
 * minute. A parent is looked for among the spans that started within an hour of the runs
 * (`dependencyParentWindowMs`); the SQL store finds it at any distance. Sharded, the parents and
 * the children's trace ids are gathered from every shard (GLOBAL): a trace's spans may have
 * arrived through different instances.
 */
export function dependencyEdgeRows(telemetry: ClickHouseTelemetry, runs: readonly MinuteRun[], environment?: string): string {
  const table = `${telemetry.database}.occurrences`;
  const global = telemetry.sharded ? 'GLOBAL ' : '';
  const environmentCondition = environment === undefined ? '' : ` AND environment = ${stringLiteral(environment)}`;
  const started = startedIn(runs, dependencyParentWindowMs);
  const where = `${started.spans}${environmentCondition}`;
  const parentsStarted = started.around;
  const minute = minuteExpression;
  const children = `${where} AND isNotNull(parent_span_id)`;
  return `
    SELECT day, ${minute} AS minute, environment, service AS source_service, ${declaredTarget} AS target, ${declaredKind} AS target_kind, is_error, latency_bucket
      FROM ${table} WHERE ${where} AND target != ''
    UNION ALL
    SELECT day, minute, environment, parent_service AS source_service, service AS target, 'service' AS target_kind, is_error, latency_bucket
      FROM (SELECT day, ${minute} AS minute, environment, trace_id, assumeNotNull(parent_span_id) AS pid, service, is_error, latency_bucket FROM ${table} WHERE ${children})
      ${global}ANY INNER JOIN (
        SELECT trace_id, span_id AS pid, service AS parent_service, ${declaredTarget} AS parent_target FROM ${table}
        WHERE ${parentsStarted} AND trace_id ${global}IN (SELECT trace_id FROM ${table} WHERE ${children})
      ) USING (trace_id, pid)
      WHERE parent_service != service AND parent_target = ''`;
}

/** Per minute of a range, the last receipt of a span that started in it; per resolved bucket, the receipts its resolution covered. */
export interface DependencyResolutionState {
  lastReceived: ReadonlyMap<number, number>;
  /** `${tierMs}:${bucket}` -> the receipts covered (the latest receipt of its minutes when it was resolved). */
  covered: ReadonlyMap<string, number>;
}

/** What a read takes from the resolved edges (buckets of one size each) and what it joins from the raw spans (minutes). */
export interface DependencyReadPlan {
  resolved: Array<{ sizeMs: number; fromMs: number; toMs: number }>;
  live: MinuteRun[];
}

/**
 * Covers the minutes [firstMinuteMs, endMinuteMs) with the coarsest resolved buckets that are
 * still exact (no span of theirs arrived after their resolution: `covered` at least the latest
 * receipt of their minutes) and lie inside the range; the other minutes with spans are joined
 * from the raw spans at read time, those without are skipped. Adjacent resolved parts of one
 * size are joined, and raw runs across minutes without spans.
 */
export function planDependencyRead(firstMinuteMs: number, endMinuteMs: number, state: DependencyResolutionState): DependencyReadPlan {
  const sizes = [...clickHouseTierSizesMs].reverse();
  const plan: DependencyReadPlan = { resolved: [], live: [] };
  const latestReceipt = (fromMs: number, toMs: number) => {
    let latest = 0;
    for (let at = fromMs; at < toMs; at += minuteMs) latest = Math.max(latest, state.lastReceived.get(at) ?? 0);
    return latest;
  };
  const push = <T extends { fromMs: number; toMs: number }>(parts: T[], part: T, same: (a: T, b: T) => boolean) => {
    const last = parts[parts.length - 1];
    if (last && last.toMs === part.fromMs && same(last, part)) last.toMs = part.toMs;
    else parts.push(part);
  };
  // A live run goes on across minutes without spans (joining them costs nothing), not across a resolved part.
  let resolvedSinceLive = true;
  let at = firstMinuteMs;
  while (at < endMinuteMs) {
    let step = minuteMs;
    let placed = false;
    for (const sizeMs of sizes) {
      if (at % sizeMs !== 0 || at + sizeMs > endMinuteMs) continue;
      const latest = latestReceipt(at, at + sizeMs);
      if (latest === 0) {
        // No span started in it: nothing to count.
        step = sizeMs;
        placed = true;
        break;
      }
      const covered = state.covered.get(`${sizeMs}:${at}`);
      if (covered !== undefined && covered >= latest) {
        push(plan.resolved, { sizeMs, fromMs: at, toMs: at + sizeMs }, (a, b) => a.sizeMs === b.sizeMs);
        resolvedSinceLive = true;
        step = sizeMs;
        placed = true;
        break;
      }
    }
    if (!placed) {
      const last = plan.live[plan.live.length - 1];
      if (last && !resolvedSinceLive) last.toMs = at + minuteMs;
      else plan.live.push({ fromMs: at, toMs: at + minuteMs });
      resolvedSinceLive = false;
    }
    at += step;
  }
  return plan;
}

/** The day partitions of [fromMs, toMs). */
export function daysOf(fromMs: number, toMs: number): string {
  return `day >= toDate(${stringLiteral(dayOf(fromMs))}) AND day <= toDate(${stringLiteral(dayOf(Math.max(fromMs, toMs - 1)))})`;
}

/** The receipts of the range's minutes and the resolutions of its buckets (a few thousand small rows for a week). */
export async function dependencyResolutionState(telemetry: ClickHouseTelemetry, firstMinuteMs: number, endMinuteMs: number): Promise<DependencyResolutionState> {
  const { database } = telemetry;
  const days = daysOf(firstMinuteMs, endMinuteMs);
  const [minutes, resolutions] = await Promise.all([
    telemetry.rows<{ minute: string; received: string }>(
      `SELECT minute, max(last_received) AS received FROM ${database}.occurrence_minutes
        WHERE ${days} AND minute >= ${numberLiteral(firstMinuteMs)} AND minute < ${numberLiteral(endMinuteMs)} GROUP BY minute`,
    ),
    telemetry.rows<{ tier_ms: string; bucket: string; covered: string }>(
      `SELECT tier_ms, bucket, max(covered) AS covered FROM ${database}.dependency_resolutions
        WHERE ${days} AND bucket >= ${numberLiteral(firstMinuteMs)} AND bucket < ${numberLiteral(endMinuteMs)} GROUP BY tier_ms, bucket`,
    ),
  ]);
  return {
    lastReceived: new Map(minutes.map((row) => [Number(row.minute), Number(row.received)])),
    covered: new Map(resolutions.map((row) => [`${row.tier_ms}:${row.bucket}`, Number(row.covered)])),
  };
}

/**
 * A resolved edge's figures from its latest resolution (rows of several resolutions of one
 * bucket collapse only when ClickHouse merges them): grouped by bucket and key.
 */
export const latestResolution =
  'argMax(count, covered) AS n, argMax(error_count, covered) AS failed, argMax(latency_buckets, covered) AS buckets, argMax(latency_counts, covered) AS counts';

interface EdgeRow {
  source_service: string;
  target: string;
  target_kind: string;
  n: string;
  errors: string;
  /** The latency histogram: buckets and their counts. */
  hist: [number[], Array<number | string>];
}

/**
 * Calls between services, to addresses and to databases over a range, as the SQL store's
 * dependency rollups count them: the resolved edges (clickhouse-dependency-resolver.ts) where
 * they are exact, the raw spans joined at read time for the minutes not resolved yet (the last
 * couple of minutes, or spans that arrived late) or not resolved since spans arrived in them.
 * The same answer either way; the resolved edges make a week's read a few hundred small rows.
 */
export async function clickHouseDependencies(telemetry: ClickHouseTelemetry, read: TelemetryRead): Promise<DependenciesResponse> {
  const { range, filters } = read;
  // Whole minutes, as the rollups count them: any minute part of which lies in the range.
  const { firstMinuteMs, endMinuteMs } = rollupMinuteBounds(range);
  const plan = endMinuteMs > firstMinuteMs ? planDependencyRead(firstMinuteMs, endMinuteMs, await dependencyResolutionState(telemetry, firstMinuteMs, endMinuteMs)) : { resolved: [], live: [] };
  const touching =
    filters.service === undefined ? '' : `WHERE source_service = ${stringLiteral(filters.service)} OR target = ${stringLiteral(filters.service)}`;
  const environment = filters.environment === undefined ? '' : ` AND environment = ${stringLiteral(filters.environment)}`;
  const [resolved, live] = await Promise.all([
    plan.resolved.length === 0
      ? []
      : telemetry.rows<EdgeRow>(`
        SELECT source_service, target, target_kind, sum(n) AS n, sum(failed) AS errors, sumMap(buckets, counts) AS hist FROM (
          SELECT source_service, target, target_kind, ${latestResolution}
            FROM ${telemetry.database}.dependency_edges
            WHERE ${daysOf(firstMinuteMs, endMinuteMs)}${environment}
              AND ${orOf(plan.resolved.map((part) => `tier_ms = ${part.sizeMs} AND bucket >= ${numberLiteral(part.fromMs)} AND bucket < ${numberLiteral(part.toMs)}`))}
            GROUP BY tier_ms, bucket, environment, source_service, target, target_kind
        ) ${touching} GROUP BY source_service, target, target_kind`),
    plan.live.length === 0
      ? []
      : telemetry.rows<EdgeRow>(`
        SELECT source_service, target, target_kind, count() AS n, sum(is_error) AS errors, sumMap([latency_bucket], [toUInt64(1)]) AS hist
        FROM (${dependencyEdgeRows(telemetry, plan.live, filters.environment)}) ${touching}
        GROUP BY source_service, target, target_kind`),
  ]);
  const edges = new Map<string, { source: string; target: string; targetKind: string; count: number; errorCount: number; histogram: string[] }>();
  for (const row of [...resolved, ...live]) {
    const key = JSON.stringify([row.source_service, row.target, row.target_kind]);
    let edge = edges.get(key);
    if (!edge) edges.set(key, (edge = { source: row.source_service, target: row.target, targetKind: row.target_kind, count: 0, errorCount: 0, histogram: [] }));
    edge.count += Number(row.n);
    edge.errorCount += Number(row.errors);
    const text = histogramText(row.hist);
    if (text) edge.histogram.push(text);
  }
  const found = [...edges.values()]
    .filter((edge) => edge.count > 0)
    .map(({ histogram, ...edge }) => {
      const { p50Ms, p95Ms } = new MergedHistogram().add(histogram.join(',')).percentiles();
      return { ...edge, targetKind: edge.targetKind as DependenciesResponse['edges'][number]['targetKind'], p50Ms, p95Ms };
    })
    .sort(busiestEdgeFirst);
  return { ...rangeEcho(range), edges: found };
}

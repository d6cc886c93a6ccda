import { minuteMs } from '../../time-units.js';
import { daysOf, dependencyEdgeRows, latestResolution, minutesOf, type MinuteRun } from './clickhouse-dependencies.js';
import { numberLiteral } from './clickhouse-literal.js';
import { clickHouseTierSizesMs } from './clickhouse-migrations.js';
import type { ClickHouseTelemetry } from './clickhouse-telemetry.js';
import { dayOf } from './clickhouse-writer.js';

/**
 * How long after the last span of a minute arrived its edges are resolved: a parent and its
 * child are sent by different services (each exporter batches for up to 5 s by default), so the
 * other half of an edge may still be on its way for a while.
 */
export const defaultDependencySettleMs = 2 * minuteMs;

/**
 * What one statement resolves at most: 60 minutes with spans, within 6 hours (its join reads the
 * spans of an hour either side too). Dense minutes make it an hour; sparse ones (a quiet
 * service) fewer statements.
 */
const chunkMinutesMax = 60;
const chunkMs = 6 * 60 * minuteMs;

/**
 * Statements one pass runs at most (a day of dense minutes), newest first: a store upgraded with
 * weeks of spans is resolved over several passes, the recent days (what dashboards read most)
 * first, and no pass holds a stopping instance for long.
 */
const chunksPerPassMax = 24;

export interface DependencyResolution {
  /** Minutes whose edges were written. */
  minutes: number;
  /** Coarser buckets (15 minutes, hours, days) written from them. */
  buckets: number;
}

/** The resolutions' finest tier: a minute. */
const minuteTier = clickHouseTierSizesMs[0];

/** Per minute with spans: its latest receipt (`received`) and the receipts its latest resolution covered (`covered`, 0 if none). */
function minuteStates(database: string): string {
  return `SELECT minute, received, covered FROM (SELECT minute, max(last_received) AS received FROM ${database}.occurrence_minutes GROUP BY minute)
    ANY LEFT JOIN (SELECT bucket AS minute, max(covered) AS covered FROM ${database}.dependency_resolutions WHERE tier_ms = ${minuteTier} GROUP BY minute) USING (minute)`;
}

const edgeColumns = 'day, tier_ms, bucket, environment, source_service, target, target_kind, count, error_count, latency_buckets, latency_counts, covered';

/** Minutes in time order as chunks (`chunkMinutesMax`, `chunkMs`), each the runs of consecutive minutes in it. */
function chunksOf(minutes: readonly number[]): MinuteRun[][] {
  const chunks: MinuteRun[][] = [];
  let inChunk = 0;
  for (const minute of minutes) {
    const chunk = chunks[chunks.length - 1];
    const last = chunk?.[chunk.length - 1];
    if (!chunk || !last || inChunk >= chunkMinutesMax || minute + minuteMs - chunk[0]!.fromMs > chunkMs) {
      chunks.push([{ fromMs: minute, toMs: minute + minuteMs }]);
      inChunk = 0;
    } else if (last.toMs === minute) last.toMs = minute + minuteMs;
    else chunk.push({ fromMs: minute, toMs: minute + minuteMs });
    inChunk += 1;
  }
  return chunks;
}

/**
 * Resolves the dependency edges of the minutes whose spans have settled (the last arrived
 * `settleMs` before `nowMs` or earlier) and that were not resolved since (newest first, up to
 * `chunksPerPassMax` statements), into
 * `dependency_edges`, then the 15-minute, hourly and daily buckets all of whose minutes are
 * resolved, from the minute rows. A resolution records the latest receipt it covered (in
 * `dependency_resolutions`); a read uses a bucket's edges only while no span of it arrived after
 * that (clickhouse-dependencies.ts), and the next pass resolves it again. Several instances may
 * resolve at once: they write the same rows, which collapse (ReplacingMergeTree, and reads take
 * each key's row of the latest resolution), so the counts stay exact without a lock. Sharded,
 * each instance reads every shard and writes to its own.
 */
export async function resolveClickHouseDependencies(telemetry: ClickHouseTelemetry, nowMs: number, settleMs = defaultDependencySettleMs): Promise<DependencyResolution> {
  const { database } = telemetry;
  const horizon = nowMs - settleMs;
  // Minutes with spans newer than their last resolution (never resolved: covered 0).
  const stale = await telemetry.rows<{ minute: string; received: string }>(`
    SELECT minute, received FROM (${minuteStates(database)}) WHERE received > covered ORDER BY minute`);
  const settled = stale.filter((row) => Number(row.received) <= horizon);
  const receivedOf = new Map(settled.map((row) => [Number(row.minute), Number(row.received)]));
  const records: Array<Record<string, unknown>> = [];
  for (const runs of chunksOf(settled.map((row) => Number(row.minute))).reverse().slice(0, chunksPerPassMax)) {
    const chunkMinutes = minutesOf(runs);
    const covered = Math.max(...chunkMinutes.map((minute) => receivedOf.get(minute) ?? 0));
    await telemetry.command(`
      INSERT INTO ${telemetry.shardDatabase}.dependency_edges (${edgeColumns})
      SELECT day, toUInt64(${minuteTier}), minute, environment, source_service, target, target_kind, count(), sum(is_error),
          tupleElement(sumMap([latency_bucket], [toUInt64(1)]), 1), tupleElement(sumMap([latency_bucket], [toUInt64(1)]), 2), toUInt64(${numberLiteral(covered)})
      FROM (${dependencyEdgeRows(telemetry, runs)})
      GROUP BY day, minute, environment, source_service, target, target_kind`);
    records.push(...chunkMinutes.map((minute) => ({ day: dayOf(minute), tier_ms: minuteTier, bucket: minute, covered })));
  }
  // Recorded once their edges are all written: a pass cut short leaves its minutes to the next.
  await telemetry.insertShardRows('dependency_resolutions', records);
  return { minutes: records.length, buckets: await resolveCoarseBuckets(telemetry, horizon) };
}

/**
 * Writes the coarser buckets that ended before `horizon`, have spans, are not resolved as of
 * their latest receipt, and hold no minute resolved before its latest spans (or not at all):
 * each from its minutes' rows of their latest resolution.
 */
async function resolveCoarseBuckets(telemetry: ClickHouseTelemetry, horizon: number): Promise<number> {
  const { database } = telemetry;
  const coarse = clickHouseTierSizesMs.slice(1);
  const candidates = await telemetry.rows<{ tier_ms: string; bucket: string; received: string; stale: string }>(`
    SELECT tier_ms, bucket, received, stale FROM (
      SELECT tier_ms, bucket, max(minute_received) AS received, sum(minute_received > minute_covered) AS stale FROM (
        SELECT minute, received AS minute_received, covered AS minute_covered FROM (${minuteStates(database)})
      ) ARRAY JOIN [${coarse.map((size) => `toUInt64(${size})`).join(', ')}] AS tier_ms
      GROUP BY tier_ms, intDiv(minute, tier_ms) * tier_ms AS bucket
      HAVING bucket + tier_ms <= ${numberLiteral(horizon)}
    ) ANY LEFT JOIN (
      SELECT tier_ms, bucket, max(covered) AS covered FROM ${database}.dependency_resolutions WHERE tier_ms != ${minuteTier} GROUP BY tier_ms, bucket
    ) USING (tier_ms, bucket)
    WHERE received > covered AND stale = 0
    ORDER BY tier_ms, bucket`);
  let written = 0;
  // One statement per tier: each candidate bucket's rows from its minutes' rows of their latest resolution.
  for (const sizeMs of coarse) {
    const buckets = candidates.filter((candidate) => Number(candidate.tier_ms) === sizeMs);
    if (buckets.length === 0) continue;
    const starts = buckets.map((candidate) => numberLiteral(Number(candidate.bucket))).join(', ');
    const covered = buckets.map((candidate) => numberLiteral(Number(candidate.received))).join(', ');
    const first = Number(buckets[0]!.bucket);
    const end = Number(buckets[buckets.length - 1]!.bucket) + sizeMs;
    await telemetry.command(`
      INSERT INTO ${telemetry.shardDatabase}.dependency_edges (${edgeColumns})
      SELECT day, toUInt64(${sizeMs}), coarse_bucket, environment, source_service, target, target_kind, sum(n), sum(failed),
          tupleElement(sumMap(buckets, counts), 1), tupleElement(sumMap(buckets, counts), 2), transform(coarse_bucket, [${starts}], [${covered}], toUInt64(0))
      FROM (
        SELECT day, intDiv(bucket, ${sizeMs}) * ${sizeMs} AS coarse_bucket, environment, source_service, target, target_kind,
            ${latestResolution}
        FROM ${database}.dependency_edges
        WHERE ${daysOf(first, end)} AND tier_ms = ${minuteTier} AND bucket >= ${numberLiteral(first)} AND bucket < ${numberLiteral(end)}
          AND intDiv(bucket, ${sizeMs}) * ${sizeMs} IN (${starts})
        GROUP BY day, bucket, environment, source_service, target, target_kind
      ) GROUP BY day, coarse_bucket, environment, source_service, target, target_kind`);
    await telemetry.insertShardRows(
      'dependency_resolutions',
      buckets.map((candidate) => ({ day: dayOf(Number(candidate.bucket)), tier_ms: sizeMs, bucket: Number(candidate.bucket), covered: Number(candidate.received) })),
    );
    written += buckets.length;
  }
  return written;
}

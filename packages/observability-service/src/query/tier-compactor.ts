import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '@playstack/server-kit';
import { MergedHistogram } from './latency-percentiles.js';
import { allKey, grainsOf, minuteMs, tierDimensions, tierSizesMs, type TierDimension } from './rollup-tiers.js';
import { minutesTouched, setTierWatermark, tierWatermark } from './tier-watermark.js';

/** Occurrences (by id) folded into the tiers per transaction: bounds how long a run holds the write lock. */
export const compactionChunkRows = 100_000;
/** Buckets per statement when recomputing (an IN list each, so the primary key finds them). */
const bucketsPerStatement = 500;
const rowsPerInsert = 500;
/** Serializes compaction across PostgreSQL instances (SQLite's write lock does it there). */
const compactionLockKey = 0x6f627374; // "obst"

function inList(column: string, values: readonly number[]): RawBuilder<unknown> {
  return sql`${sql.ref(column)} in (${sql.join(values.map((value) => sql`${value}`))})`;
}

function histogramAggregate(database: Database): RawBuilder<unknown> {
  return database.dialect === 'postgres' ? sql`string_agg(nullif(histogram, ''), ',')` : sql`group_concat(nullif(histogram, ''), ',')`;
}

async function insertTierRows(db: Kysely<any>, table: string, rows: Array<Record<string, unknown>>): Promise<void> {
  for (let offset = 0; offset < rows.length; offset += rowsPerInsert) await db.insertInto(table).values(rows.slice(offset, offset + rowsPerInsert)).execute();
}

/** Turns grouped SQL rows into tier rows: one encoded histogram each, numbers as numbers. */
function tierRowsFrom(dimension: TierDimension, tierMs: number, rows: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
  return rows.map((row) => {
    const out: Record<string, unknown> = { tier_ms: tierMs, grain: Number(row.grain), bucket: Number(row.bucket) };
    for (const column of dimension.keyColumns) out[column] = row[column];
    for (const column of dimension.extraColumns) out[column] = row[column] ?? null;
    out.count = Number(row.count);
    out.error_count = Number(row.error_count);
    out.duration_sum_ms = Number(row.duration_sum_ms);
    out.duration_max_ms = Number(row.duration_max_ms);
    if (dimension.withHistogram) out.histogram = new MergedHistogram().add(row.histogram as string | null).encode();
    return out;
  });
}

/**
 * Recomputes one tier's buckets: from the per-minute rollups (with every cube subset) for the
 * 1-minute tier, from the next finer tier otherwise.
 */
async function recomputeTier(db: Kysely<any>, database: Database, dimension: TierDimension, tierMs: number, buckets: readonly number[]): Promise<void> {
  const figures = [
    sql`sum(count) as count`,
    sql`sum(error_count) as error_count`,
    sql`sum(duration_sum_ms) as duration_sum_ms`,
    sql`max(duration_max_ms) as duration_max_ms`,
    ...(dimension.withHistogram ? [sql`${histogramAggregate(database)} as histogram`] : []),
    ...dimension.extraColumns.map((column) => sql`max(${sql.ref(column)}) as ${sql.ref(column)}`),
  ];
  const finer = tierMs === minuteMs ? undefined : tierSizesMs[tierSizesMs.indexOf(tierMs as (typeof tierSizesMs)[number]) - 1]!;
  const step = finer === undefined ? bucketsPerStatement : Math.max(1, Math.floor(bucketsPerStatement / (tierMs / finer)));
  for (let offset = 0; offset < buckets.length; offset += step) {
    const batch = buckets.slice(offset, offset + step);
    await db.deleteFrom(dimension.table).where('tier_ms', '=', tierMs).where(inList('bucket', batch) as never).execute();
    if (finer === undefined) {
      for (const { grain, allColumns } of grainsOf(dimension)) {
        const kept = dimension.keyColumns.filter((column) => !allColumns.includes(column));
        const keys = dimension.keyColumns.map((column) => (allColumns.includes(column) ? sql`${allKey} as ${sql.ref(column)}` : sql.ref(column)));
        const result = await sql<Record<string, unknown>>`
          select minute as bucket, ${sql.lit(grain)} as grain, ${sql.join([...keys, ...figures])}
          from ${sql.table(dimension.source)}
          where ${inList('minute', batch)}
          group by ${sql.join([sql.ref('minute'), ...kept.map((column) => sql.ref(column))])}
        `.execute(db);
        await insertTierRows(db, dimension.table, tierRowsFrom(dimension, tierMs, result.rows));
      }
    } else {
      const finerBuckets = batch.flatMap((bucket) => Array.from({ length: tierMs / finer }, (_, i) => bucket + i * finer));
      const result = await sql<Record<string, unknown>>`
        select bucket - (bucket % ${sql.lit(tierMs)}) as bucket, grain, ${sql.join([...dimension.keyColumns.map((column) => sql.ref(column)), ...figures])}
        from ${sql.table(dimension.table)}
        where tier_ms = ${finer} and ${inList('bucket', finerBuckets)}
        group by ${sql.join([sql`bucket - (bucket % ${sql.lit(tierMs)})`, sql.ref('grain'), ...dimension.keyColumns.map((column) => sql.ref(column))])}
      `.execute(db);
      await insertTierRows(db, dimension.table, tierRowsFrom(dimension, tierMs, result.rows));
    }
  }
}

/** Recomputes every tier of every dimension for the given minutes. */
async function recomputeMinutes(db: Kysely<any>, database: Database, minutes: ReadonlySet<number>): Promise<void> {
  if (minutes.size === 0) return;
  for (const dimension of Object.values(tierDimensions)) {
    for (const tierMs of tierSizesMs) {
      const buckets = [...new Set([...minutes].map((minute) => minute - (minute % tierMs)))].sort((a, b) => a - b);
      await recomputeTier(db, database, dimension, tierMs, buckets);
    }
  }
}

export interface CompactionResult {
  /** The watermark after the run. */
  throughId: number;
  minutes: number;
}

/**
 * Folds occurrences stored since the last run into the tiers, a chunk per transaction, until it
 * has caught up. Returns without work when another instance holds the compaction lock.
 */
export async function compactTiers(database: Database): Promise<CompactionResult> {
  const result: CompactionResult = { throughId: 0, minutes: 0 };
  for (;;) {
    const step = await database.db.transaction().execute(async (trx) => {
      if (database.dialect === 'postgres') {
        const locked = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(${compactionLockKey}) as locked`.execute(trx);
        if (!locked.rows[0]?.locked) return undefined;
      }
      const from = await tierWatermark(trx);
      const newest = await trx.selectFrom('occurrences').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst();
      const newestId = Number(newest?.id ?? 0);
      if (newestId <= from) return { throughId: from, minutes: 0, done: true };
      const through = Math.min(newestId, from + compactionChunkRows);
      const minutes = await minutesTouched(trx, from, through);
      await recomputeMinutes(trx, database, minutes);
      await setTierWatermark(trx, through);
      return { throughId: through, minutes: minutes.size, done: through >= newestId };
    });
    if (!step) return result;
    result.throughId = step.throughId;
    result.minutes += step.minutes;
    if (step.done) return result;
  }
}

/** Drops tier buckets that end at or before `cutoffMs` (retention). */
export async function pruneTiers(db: Kysely<any>, cutoffMs: number): Promise<void> {
  for (const dimension of Object.values(tierDimensions)) {
    await db.deleteFrom(dimension.table).where(sql<boolean>`bucket + tier_ms <= ${cutoffMs}`).execute();
  }
}

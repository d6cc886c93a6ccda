import { CompiledQuery, sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database, Dialect } from '@playstack/server-kit';
import { multiRowInsertSql } from '../storage/multi-row-insert.js';
import { schemaLock } from '../storage/schema-lock.js';
import type { TelemetryDatabase } from '../storage/storage-tables.js';
import { minuteMs } from '../time-units.js';
import { MergedHistogram } from './latency-percentiles.js';
import { histogramAggregate, inList } from './rollup-aggregate.js';
import { allKey, allTierDimensions, grainsOf, tierKeyColumns, tierSizesMs, type KeyDictionary, type TierDimension } from './rollup-tiers.js';
import { minutesTouched, newestOccurrenceId, setTierWatermark, tierWatermark } from './tier-watermark.js';

/** Occurrences (by id) folded into the tiers per transaction: bounds how long a run holds the write lock. */
export const compactionChunkRows = 20_000;
/** Buckets per statement when recomputing (an IN list each, so the primary key finds them). */
const bucketsPerStatement = 500;
const rowsPerInsert = 500;
/** Serializes compaction, and the pruning of tiers, across PostgreSQL instances (SQLite's write lock does it there). */
export const compactionLock = schemaLock(0x6f627374); // "obst"

/** A tier row's figures, after its key and extra columns. */
function figureColumns(dimension: TierDimension): string[] {
  return ['count', 'error_count', 'duration_sum_ms', 'duration_max_ms', ...dimension.histogramColumns];
}

/** A tier table's columns in insert order. */
function tierColumns(dimension: TierDimension): string[] {
  return ['tier_ms', 'grain', 'bucket', ...tierKeyColumns(dimension), ...dimension.extraColumns, ...figureColumns(dimension)];
}

/**
 * Inserts grouped rows, each histogram column merged into one canonical string (concatenations
 * would grow with traffic instead of with the number of latency buckets).
 */
async function insertWithMergedHistograms(db: Kysely<TelemetryDatabase>, dialect: Dialect, dimension: TierDimension, rows: Array<Record<string, unknown>>): Promise<void> {
  const columns = tierColumns(dimension);
  for (let offset = 0; offset < rows.length; offset += rowsPerInsert) {
    const chunk = rows.slice(offset, offset + rowsPerInsert);
    const parameters: unknown[] = [];
    for (const row of chunk) {
      for (const column of columns) {
        const histogram = (dimension.histogramColumns as readonly string[]).includes(column);
        parameters.push(histogram ? new MergedHistogram().add(row[column] as string | null).encode() : row[column]);
      }
    }
    await db.executeQuery(CompiledQuery.raw(multiRowInsertSql(dialect, dimension.table, columns, chunk.length), parameters));
  }
}

/** Runs a grouped select into the tier: straight `insert ... select` unless histograms need merging. */
async function fillTier(db: Kysely<TelemetryDatabase>, dialect: Dialect, dimension: TierDimension, select: RawBuilder<Record<string, unknown>>): Promise<void> {
  if (dimension.histogramColumns.length === 0) {
    await sql`insert into ${sql.table(dimension.table)} (${sql.join(tierColumns(dimension).map((column) => sql.ref(column)))}) ${select}`.execute(db);
    return;
  }
  const result = await select.execute(db);
  await insertWithMergedHistograms(db, dialect, dimension, result.rows);
}

/** Gives every key of the source rows of these minutes its dictionary id (the ids already given stay). */
async function addKeys(db: Kysely<TelemetryDatabase>, dimension: TierDimension, dictionary: KeyDictionary, minutes: readonly number[]): Promise<void> {
  const keys = sql.join(dimension.keyColumns.map((column) => sql.ref(column)));
  await sql`
    insert into ${sql.table(dictionary.table)} (${keys})
    select distinct ${keys} from ${sql.table(dimension.source)} where ${inList('minute', minutes)}
    on conflict (${keys}) do nothing
  `.execute(db);
}

/**
 * A grouped select from the per-minute rollups as tier rows: as it is, or with the key columns
 * replaced by their dictionary id (joined after grouping, so once per tier row).
 */
function tierRowsFromSource(dimension: TierDimension, grouped: RawBuilder<Record<string, unknown>>): RawBuilder<Record<string, unknown>> {
  const dictionary = dimension.dictionary;
  if (!dictionary) return grouped;
  const figures = figureColumns(dimension).map((column) => sql.ref(`g.${column}`));
  return sql<Record<string, unknown>>`
    select g.tier_ms, g.grain, g.bucket, k.id as ${sql.ref(dictionary.column)}, ${sql.join(figures)}
    from (${grouped}) g
    join ${sql.table(dictionary.table)} k on ${sql.join(
      dimension.keyColumns.map((column) => sql`k.${sql.ref(column)} = g.${sql.ref(column)}`),
      sql` and `,
    )}
  `;
}

/** Recomputes one tier's buckets, every grain, from the per-minute rollups or the next finer tier. */
async function recomputeTier(db: Kysely<TelemetryDatabase>, dialect: Dialect, dimension: TierDimension, tierMs: number, buckets: readonly number[]): Promise<void> {
  const figures = [
    ...dimension.extraColumns.map((column) => sql`max(${sql.ref(column)}) as ${sql.ref(column)}`),
    sql`sum(count) as count`,
    sql`sum(error_count) as error_count`,
    sql`sum(duration_sum_ms) as duration_sum_ms`,
    sql`max(duration_max_ms) as duration_max_ms`,
    ...dimension.histogramColumns.map((column) => sql`${histogramAggregate(dialect, column)} as ${sql.ref(column)}`),
  ];
  // The grain leads the key after the tier: naming every grain lets the index reach the buckets.
  const grains = inList('grain', grainsOf(dimension).map(({ grain }) => grain));
  const index = dimension.sizesMs.indexOf(tierMs);
  const finer = index > 0 ? dimension.sizesMs[index - 1]! : undefined;
  // Straight from the per-minute rollups: a dimension's finest tier, and the tier above a 1-minute
  // one (which does not hold every grain). Coarser ones from the next finer tier.
  const readMs = finer ?? minuteMs;
  const fromSource = readMs === minuteMs;
  const step = Math.max(1, Math.floor(bucketsPerStatement / (tierMs / readMs)));
  for (let offset = 0; offset < buckets.length; offset += step) {
    const batch = buckets.slice(offset, offset + step);
    await db.deleteFrom(dimension.table).where('tier_ms', '=', tierMs).where(grains).where(inList('bucket', batch)).execute();
    if (fromSource) {
      const minutes = tierMs === minuteMs ? batch : batch.flatMap((bucket) => Array.from({ length: tierMs / minuteMs }, (_, i) => bucket + i * minuteMs));
      const bucketOf = tierMs === minuteMs ? sql.ref('minute') : sql`minute - (minute % ${sql.lit(tierMs)})`;
      if (dimension.dictionary) await addKeys(db, dimension, dimension.dictionary, minutes);
      for (const { grain, allColumns } of grainsOf(dimension)) {
        if (tierMs === minuteMs && !dimension.minuteGrains(grain)) continue;
        const kept = dimension.keyColumns.filter((column) => !allColumns.includes(column));
        const keys = dimension.keyColumns.map((column) => (allColumns.includes(column) ? sql`${allKey} as ${sql.ref(column)}` : sql.ref(column)));
        await fillTier(
          db,
          dialect,
          dimension,
          tierRowsFromSource(
            dimension,
            sql<Record<string, unknown>>`
              select ${sql.lit(tierMs)} as tier_ms, ${sql.lit(grain)} as grain, ${bucketOf} as bucket, ${sql.join([...keys, ...figures])}
              from ${sql.table(dimension.source)}
              where ${inList('minute', minutes)}
              group by ${sql.join([bucketOf, ...kept.map((column) => sql.ref(column))])}
            `,
          ),
        );
      }
    } else {
      const finerBuckets = batch.flatMap((bucket) => Array.from({ length: tierMs / readMs }, (_, i) => bucket + i * readMs));
      const coarse = sql`bucket - (bucket % ${sql.lit(tierMs)})`;
      const keys = tierKeyColumns(dimension).map((column) => sql.ref(column));
      await fillTier(
        db,
        dialect,
        dimension,
        sql<Record<string, unknown>>`
          select ${sql.lit(tierMs)} as tier_ms, grain, ${coarse} as bucket, ${sql.join([...keys, ...figures])}
          from ${sql.table(dimension.table)}
          where tier_ms = ${readMs} and ${grains} and ${inList('bucket', finerBuckets)}
          group by ${sql.join([coarse, sql.ref('grain'), ...keys])}
        `,
      );
    }
  }
}

/** Recomputes every tier of every dimension for the given minutes. */
async function recomputeMinutes(db: Kysely<TelemetryDatabase>, dialect: Dialect, minutes: ReadonlySet<number>): Promise<void> {
  if (minutes.size === 0) return;
  for (const dimension of allTierDimensions) {
    for (const tierMs of dimension.sizesMs) {
      const buckets = [...new Set([...minutes].map((minute) => minute - (minute % tierMs)))].sort((a, b) => a - b);
      await recomputeTier(db, dialect, dimension, tierMs, buckets);
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
export async function compactTiers(database: Database<TelemetryDatabase>): Promise<CompactionResult> {
  const result: CompactionResult = { throughId: 0, minutes: 0 };
  for (;;) {
    const step = await database.db.transaction().execute(async (trx) => {
      if (database.dialect === 'postgres') {
        const locked = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(${compactionLock}) as locked`.execute(trx);
        if (!locked.rows[0]?.locked) return undefined;
      }
      const from = await tierWatermark(trx);
      const newestId = await newestOccurrenceId(trx);
      if (newestId <= from) return { throughId: from, minutes: 0, done: true };
      const through = Math.min(newestId, from + compactionChunkRows);
      const minutes = await minutesTouched(trx, from, through);
      await recomputeMinutes(trx, database.dialect, minutes);
      await setTierWatermark(trx, through);
      return { throughId: through, minutes: minutes.size, done: through >= newestId };
    });
    if (!step) return result;
    result.throughId = step.throughId;
    result.minutes += step.minutes;
    if (step.done) return result;
  }
}

/**
 * Drops tier buckets that end at or before `cutoffMs` (retention); a key-prefix range per tier and
 * grain, never a scan. On PostgreSQL it runs in one transaction holding the compaction lock, so a
 * compaction running on another instance cannot write back a bucket it computed before the prune.
 * On SQLite each delete stands alone (compaction there is one transaction on the same connection),
 * so ingestion commits between them as it does between the pruner's other deletes.
 */
export async function pruneTiers(database: Pick<Database<TelemetryDatabase>, 'db' | 'dialect'>, cutoffMs: number): Promise<void> {
  const prune = async (db: Kysely<TelemetryDatabase>) => {
    for (const dimension of allTierDimensions) {
      const grains = inList('grain', grainsOf(dimension).map(({ grain }) => grain));
      // Every size, not only the dimension's own: nothing a release no longer reads outlives retention.
      for (const tierMs of tierSizesMs) {
        await db.deleteFrom(dimension.table).where('tier_ms', '=', tierMs).where(grains).where('bucket', '<=', cutoffMs - tierMs).execute();
      }
    }
  };
  if (database.dialect !== 'postgres') return prune(database.db);
  await database.db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${compactionLock})`.execute(trx);
    await prune(trx);
  });
}

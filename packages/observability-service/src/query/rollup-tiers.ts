import type { RollupTableName } from '../storage/rollup-accumulator.js';
import { minuteMs } from '../time-units.js';

/**
 * Rollup tiers: the per-minute rollups summed into 1-minute, 15-minute and 1-hour buckets (and
 * 5-minute and 6-hour ones where a dimension keeps them: `sizesMs`) at a coarser key, each with
 * "all" rows (key value `allKey`) for the columns a view may leave unfiltered. A 24-hour summary
 * then reads about 60 rows per key instead of 1,440 minutes times every operation, and a 24-hour
 * operations list about 20 buckets per key (three of 6 hours, the hours, quarter hours and five
 * minutes at its unaligned ends); a 7-day trend reads 168 hours.
 *
 * The tiers are derived, never written by ingestion: the tier compactor recomputes the minutes
 * new occurrences touched (tier-compactor.ts). Minutes it has not caught up with are "dirty" and
 * read from the per-minute rollups instead, so figures are exact at any moment.
 */

/** The key value meaning "every value" (real values are never empty: the protocol requires 1+ chars). */
export const allKey = '';

const fiveMinutesMs = 5 * minuteMs;
const sixHoursMs = 6 * 60 * minuteMs;

/** The tier sizes the service and statement tiers keep, finest first; each divides the next. */
const baseTierSizesMs = [minuteMs, 15 * minuteMs, 60 * minuteMs] as const;

/**
 * With 6-hour buckets (6 hours divides a day, so a bucketed query with a daily interval can use
 * them), for the tenant and dependency tiers; the operation tiers keep them too (below). The
 * 6-hour tier (20261203160000-six-hour-tier.ts) is kept only where the views reading it were
 * slow, since recomputing it costs the compactor: with it the top-operations SQL at 10M
 * occurrences read 2.5 times fewer rows and took half the time (docs/observability-read-api.md).
 */
const sixHourTierSizesMs = [...baseTierSizesMs, sixHoursMs] as const;

/**
 * The dependency tiers: 6-hour buckets, and 5-minute ones, so a range's unaligned ends read at most
 * 4 one-minute buckets each instead of 14 (20261207193000-dependency-five-minute-tier.ts): at 10M
 * occurrences the 24-hour map's one-minute rows were 2,806 of the 7,206 tier rows it read, and a
 * tier read costs about a microsecond a row returned (docs/observability-read-api.md).
 */
const dependencyTierSizesMs = [minuteMs, fiveMinutesMs, 15 * minuteMs, 60 * minuteMs, sixHoursMs] as const;

/**
 * The operation tiers: no 1-minute tier (it would be as large as the per-minute rollup it
 * copies), but 5-minute buckets, so a range's unaligned ends read at most 4 minutes each from the
 * per-minute rollups instead of 14 (20261204200000-operation-keys.ts).
 */
const operationTierSizesMs = [fiveMinutesMs, 15 * minuteMs, 60 * minuteMs, sixHoursMs] as const;

/** Every tier size some dimension keeps, finest first; each divides the next. */
export const tierSizesMs = [minuteMs, fiveMinutesMs, 15 * minuteMs, 60 * minuteMs, sixHoursMs] as const;

/**
 * A tier keyed by one integer instead of its key columns: the dictionary table maps each id to
 * the key columns' values (`id` and the `keyColumns`, unique together). Only for tiers without
 * "all" rows (no `cubeColumns`) or extra columns.
 */
export interface KeyDictionary {
  table: 'operation_keys';
  /** The tier's column holding the id. */
  column: 'operation_key';
}

export interface TierDimension {
  /** The per-minute rollup table the tier is derived from. */
  source: RollupTableName;
  table: 'service_tiers' | 'operation_tiers' | 'tenant_tiers' | 'statement_tiers' | 'dependency_tiers';
  /** The key columns of the source rows the tier sums (and of the tier itself, unless `dictionary` encodes them). */
  keyColumns: readonly string[];
  /** Where the tier stores its key as one id (`keyColumns` then live in the dictionary only). */
  dictionary?: KeyDictionary;
  /** Key columns that also get "all" rows. */
  cubeColumns: readonly string[];
  /** Descriptive columns, functions of the key, carried along with `max()`. */
  extraColumns: readonly string[];
  /**
   * Grains the 1-minute tier keeps: only those much smaller than the per-minute rollup itself
   * (reading the rollup is as fast for the others, and storing them would double the data).
   */
  minuteGrains: (grain: number) => boolean;
  /** The histogram columns it carries, merged bucket by bucket (none for counts-only tiers). */
  histogramColumns: readonly HistogramColumn[];
  /** The tier sizes it keeps (of `tierSizesMs`), finest first. */
  sizesMs: readonly number[];
}

export type HistogramColumn = 'histogram' | 'error_histogram';

export const tierDimensions: Readonly<Record<RollupTableName, TierDimension>> = {
  operation_rollups: {
    source: 'operation_rollups',
    table: 'service_tiers',
    // The span role is always filtered on or grouped by (a service's figures count one role), never "all".
    keyColumns: ['service', 'environment', 'span_role'],
    cubeColumns: ['service', 'environment'],
    extraColumns: [],
    histogramColumns: ['histogram', 'error_histogram'],
    minuteGrains: () => true,
    sizesMs: baseTierSizesMs,
  },
  tenant_rollups: {
    source: 'tenant_rollups',
    table: 'tenant_tiers',
    keyColumns: ['tenant_id', 'service', 'environment'],
    cubeColumns: ['tenant_id', 'service', 'environment'],
    extraColumns: [],
    histogramColumns: [],
    minuteGrains: (grain) => (grain & 1) !== 0,
    sizesMs: sixHourTierSizesMs,
  },
  statement_rollups: {
    source: 'statement_rollups',
    table: 'statement_tiers',
    keyColumns: ['service', 'environment', 'db_system', 'statement_hash'],
    cubeColumns: ['service', 'environment'],
    extraColumns: ['statement', 'db_operation'],
    histogramColumns: ['histogram'],
    minuteGrains: (grain) => (grain & 1) !== 0,
    sizesMs: baseTierSizesMs,
  },
  dependency_rollups: {
    source: 'dependency_rollups',
    table: 'dependency_tiers',
    keyColumns: ['environment', 'source_service', 'target', 'target_kind'],
    cubeColumns: ['environment'],
    extraColumns: [],
    histogramColumns: ['histogram'],
    minuteGrains: (grain) => grain !== 0,
    sizesMs: dependencyTierSizesMs,
  },
};

/**
 * The operation rollups at their own key, for the top-operations view (the service tiers above
 * sum operations away). No "all" rows: the view always groups by every key column. Sizes from 5
 * minutes (`operationTierSizesMs`). The key is dictionary-encoded
 * (20261204200000-operation-keys.ts): the view groups thousands of keys per bucket, which SQLite
 * does faster by one integer than by five text columns.
 */
export const operationTiers: TierDimension = {
  source: 'operation_rollups',
  table: 'operation_tiers',
  keyColumns: ['service', 'environment', 'operation', 'kind', 'span_role'],
  dictionary: { table: 'operation_keys', column: 'operation_key' },
  cubeColumns: [],
  extraColumns: [],
  histogramColumns: ['histogram', 'error_histogram'],
  minuteGrains: () => false,
  sizesMs: operationTierSizesMs,
};

/** Every tier the compactor maintains and retention prunes. */
export const allTierDimensions: readonly TierDimension[] = [...Object.values(tierDimensions), operationTiers];

/** The columns that key a tier's rows after its tier, grain and bucket. */
export function tierKeyColumns(dimension: TierDimension): readonly string[] {
  return dimension.dictionary ? [dimension.dictionary.column] : dimension.keyColumns;
}

/** Every grain of a dimension: which cube columns hold `allKey` (bit i: cube column i). */
export function grainsOf(dimension: TierDimension): Array<{ grain: number; allColumns: string[] }> {
  const columns = dimension.cubeColumns;
  return Array.from({ length: 1 << columns.length }, (_, grain) => ({ grain, allColumns: columns.filter((_, index) => (grain & (1 << index)) !== 0) }));
}

/** The grain whose rows hold exactly the given cube columns as "all". */
export function grainFor(dimension: TierDimension, allColumns: readonly string[]): number {
  return dimension.cubeColumns.reduce((grain, column, index) => (allColumns.includes(column) ? grain | (1 << index) : grain), 0);
}

/** A run of consecutive buckets of one tier (or of raw minutes) that a query reads. */
export interface TierSpan {
  tierMs: number;
  fromMs: number;
  toMs: number;
}

/** Where a range's minutes are read from: tier spans, and the dirty minutes' spans from the source. */
export interface TierPlan {
  tiers: TierSpan[];
  sourceMinutes: Array<{ fromMs: number; toMs: number }>;
}

function pushSpan<T extends { fromMs: number; toMs: number }>(spans: T[], span: T, same: (a: T, b: T) => boolean): void {
  const last = spans[spans.length - 1];
  if (last && last.toMs === span.fromMs && same(last, span)) last.toMs = span.toMs;
  else spans.push(span);
}

/**
 * Covers the minutes [firstMinuteMs, endMinuteMs) with the coarsest clean buckets: a bucket is
 * used when it lies inside the range, contains no dirty minute and, for bucketed queries, does
 * not straddle an output bucket (`largestTierMs` divides the output interval).
 */
export function planTiers(
  firstMinuteMs: number,
  endMinuteMs: number,
  dirtyMinutes: ReadonlySet<number>,
  largestTierMs: number,
  minuteTierKept = true,
  keptSizesMs: readonly number[] = sixHourTierSizesMs,
): TierPlan {
  const sortedDirty = [...dirtyMinutes].filter((m) => m >= firstMinuteMs && m < endMinuteMs).sort((a, b) => a - b);
  const hasDirty = (fromMs: number, toMs: number) => {
    let low = 0;
    let high = sortedDirty.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (sortedDirty[mid]! < fromMs) low = mid + 1;
      else high = mid;
    }
    return low < sortedDirty.length && sortedDirty[low]! < toMs;
  };
  const sizes = keptSizesMs.filter((size) => size <= largestTierMs && (size !== minuteMs || minuteTierKept)).reverse();
  const plan: TierPlan = { tiers: [], sourceMinutes: [] };
  let at = firstMinuteMs;
  while (at < endMinuteMs) {
    const size = sizes.find((candidate) => at % candidate === 0 && at + candidate <= endMinuteMs && !hasDirty(at, at + candidate));
    if (size !== undefined) {
      pushSpan(plan.tiers, { tierMs: size, fromMs: at, toMs: at + size }, (a, b) => a.tierMs === b.tierMs);
      at += size;
    } else {
      pushSpan(plan.sourceMinutes, { fromMs: at, toMs: at + minuteMs }, () => true);
      at += minuteMs;
    }
  }
  return plan;
}

/** The largest tier whose buckets never straddle output buckets of `intervalMs`. */
export function largestTierWithin(intervalMs: number | undefined): number {
  if (intervalMs === undefined) return tierSizesMs[tierSizesMs.length - 1]!;
  return [...tierSizesMs].reverse().find((size) => intervalMs % size === 0) ?? minuteMs;
}

import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { Dialect } from '@playstack/server-kit';
import type { RollupTableName } from '../storage/rollup-accumulator.js';
import type { TelemetryDatabase } from '../storage/storage-tables.js';
import { minuteMs, minuteOf } from '../time-units.js';
import type { QueryRange } from './query-range.js';
import { grainFor, largestTierWithin, planTiers, tierDimensions, type HistogramColumn, type KeyDictionary, type TierDimension, type TierSpan } from './rollup-tiers.js';
import { dirtyMinutesNow } from './tier-watermark.js';
import { TupleMap } from './tuple-map.js';

/** Tier buckets a `keyIds` read names one by one (beyond, it reads their ranges). */
const lookupBucketsMax = 64;
/** Stretches a query reads from the per-minute rollups one by one before it reads them all. */
const sourceSpansMax = 64;

/** A condition on key columns that every row of the source and its tiers can answer. */
export type RollupCondition = RawBuilder<unknown>;

/** The minutes the tiers have not caught up with (see `dirtyMinutesNow`), as a request reads them. */
export type DirtyMinutes = () => Promise<Set<number> | undefined>;

/** Where rollups are read from; a `ReadQuery` is one. */
export interface RollupSource {
  readonly db: Kysely<TelemetryDatabase>;
  readonly dialect: Dialect;
  /** Lets the reads of one request share one look-up; without it each read looks the minutes up now. */
  readonly dirtyMinutes?: DirtyMinutes | undefined;
}

export interface RollupAggregateQuery {
  /** The per-minute rollup table whose figures are wanted (its tiers are used where they can be). */
  table: RollupTableName;
  /** The tiers to read where they can be used; default: the table's own (`tierDimensions`). */
  tiers?: TierDimension;
  range: QueryRange;
  /** Key columns that must equal a value; undefined values are not filters. */
  equals?: Readonly<Record<string, string | undefined>>;
  /** Key columns that must be one of the values (columns the query groups by, or never "all" in the tiers). */
  oneOf?: Readonly<Record<string, readonly string[]>>;
  /**
   * For a dictionary-keyed tier (`TierDimension.dictionary`): the tier rows wanted are exactly
   * those of these ids (the `keyId`s of an earlier answer's groups), looked up one by one through
   * the tier's primary key instead of filtered by key columns. The per-minute rollups are still
   * filtered by `equals` and `oneOf`, which must select at least the same keys. The SQL store only.
   */
  keyIds?: readonly number[];
  /** Further SQL conditions on columns that are never "all" in the tiers (the SQL store only). */
  where?: RollupCondition[];
  /** Key columns to group by, returned under their own names. */
  groupBy?: readonly string[];
  /** Also group into time buckets of this many milliseconds (aligned to the epoch). */
  bucketMs?: number;
  /**
   * Only `count` and `errorCount` are wanted: a store may leave the duration figures 0 (the SQL
   * store does: two sums fewer per row read, about a fifth of a large grouping's time).
   */
  countsOnly?: boolean;
  /** Fetch the merged histogram text (costs a string per group; leave off for counts only). */
  withHistogram?: boolean;
  /** Also the error latencies' histogram (operation rollups and their tiers only). */
  withErrorHistogram?: boolean;
  /** Descriptive columns of the dimension to return too, as `max(column)`. */
  extraColumns?: readonly string[];
}

/**
 * Where the views read rollups from: the SQL store's tables and tiers (`sqlRollupReader`), or
 * another store's rollups with the same figures.
 */
export interface RollupReader {
  /** Sums a rollup's figures over a range, grouped as asked (see `aggregateRollups`). */
  aggregate(query: RollupAggregateQuery): Promise<RollupAggregate[]>;
  /** The distinct values of the `groupBy` columns with data in the range. */
  distinctKeys(query: RollupAggregateQuery): Promise<Array<Record<string, string>>>;
}

/** One group of rollup rows, summed. */
export interface RollupAggregate {
  keys: Record<string, string>;
  /**
   * The group's id in its tier's key dictionary, when a dictionary-keyed tier held rows of it and
   * the query grouped by every key column (see `keyIds`).
   */
  keyId?: number | undefined;
  /** Start of the time bucket, when the query asked for buckets (0 otherwise). */
  bucketStartMs: number;
  count: number;
  errorCount: number;
  durationSumMs: number;
  durationMaxMs: number;
  /** The group's histograms joined with commas; feed to `MergedHistogram.add`. */
  histogram: string | null;
  /** The same for the error occurrences alone, when asked for. */
  errorHistogram: string | null;
  extra: Record<string, string | null>;
}

/**
 * Rollup rows are per whole minute, so a rollup view counts a minute when any part of it lies
 * in the range: the minutes starting in (from - 1 min, to).
 */
export function rollupMinuteBounds(range: QueryRange): { firstMinuteMs: number; endMinuteMs: number } {
  return { firstMinuteMs: minuteOf(range.fromMs), endMinuteMs: Math.ceil(range.toMs / minuteMs) * minuteMs };
}

/** Joins a group's non-empty histogram texts with commas (the per-minute rollups' and the tiers'). */
export function histogramAggregate(dialect: Dialect, column: HistogramColumn = 'histogram'): RawBuilder<unknown> {
  return dialect === 'postgres' ? sql`string_agg(nullif(${sql.ref(column)}, ''), ',')` : sql`group_concat(nullif(${sql.ref(column)}, ''), ',')`;
}

/** Two histogram texts (either may be null) as one, for `MergedHistogram.add`. */
export function joinHistograms(a: string | null, b: string | null): string | null {
  if (!a) return b || null;
  return b ? `${a},${b}` : a;
}

function textOrNull(value: unknown): string | null {
  return value === null ? null : String(value);
}

/**
 * `key` extended by one more key value, length-prefixed, so that keys built value by value never
 * collide whatever the values hold (cheaper than JSON for the thousands of groups of a request).
 */
export function withKeyValue(key: string, value: string): string {
  return `${key}|${value.length}:${value}`;
}

/** `column in (values)`, each distinct value once; raw SQL and the query builder's `where` both take it. */
export function inList(column: string, values: ReadonlyArray<string | number>): RawBuilder<SqlBool> {
  return sql<SqlBool>`${sql.ref(column)} in (${sql.join([...new Set(values)])})`;
}

/** A span of tier buckets as its buckets, one span each. */
function singleBuckets(span: TierSpan): TierSpan[] {
  return Array.from({ length: (span.toMs - span.fromMs) / span.tierMs }, (_, index) => {
    const fromMs = span.fromMs + index * span.tierMs;
    return { tierMs: span.tierMs, fromMs, toMs: fromMs + span.tierMs };
  });
}

function spansCondition(column: string, spans: ReadonlyArray<{ fromMs: number; toMs: number }>): RawBuilder<unknown> {
  return sql`(${sql.join(
    spans.map((span) => sql`(${sql.ref(column)} >= ${span.fromMs} and ${sql.ref(column)} < ${span.toMs})`),
    sql` or `,
  )})`;
}

interface Part {
  from: RawBuilder<unknown>;
  timeColumn: string;
  /** The tier buckets or source minutes the part reads: a key has at most one row in each. */
  units: number;
  conditions: RollupCondition[];
  /** The rows' key is one dictionary id (the key columns are the dictionary's). */
  dictionary?: KeyDictionary | undefined;
  /** The column whose value is each group's `keyId`: when the query groups by every key column of the dictionary. */
  idColumn?: string | undefined;
}

/** A select of the key columns' values from a part's dictionary, `k`, joined to `g`'s ids. */
function withKeyNames(dictionary: KeyDictionary, columns: readonly string[], grouped: RawBuilder<unknown>): RawBuilder<Record<string, unknown>> {
  return sql<Record<string, unknown>>`
    select ${sql.join(columns.map((column) => sql`k.${sql.ref(column)}`))}, g.*
    from (${grouped}) g join ${sql.table(dictionary.table)} k on k.id = g.${sql.ref(dictionary.column)}
  `;
}

/** Dictionary ids a database's name cache holds at most (beyond, it starts again). */
const keyNamesCachedMax = 100_000;
/**
 * The key columns of dictionary ids already read, per database and dictionary: an id's key never
 * changes and ids are never given again (the compactor only adds), so a cached entry stays true.
 */
const keyNamesCache = new WeakMap<object, Map<string, Map<number, Record<string, unknown>>>>();

/** The key columns of these dictionary ids, from the cache or, for ids not in it yet, the dictionary. */
async function keyNamesOf(db: Kysely<TelemetryDatabase>, dictionary: KeyDictionary, ids: Iterable<number>): Promise<Map<number, Record<string, unknown>>> {
  let byTable = keyNamesCache.get(db);
  if (!byTable) keyNamesCache.set(db, (byTable = new Map()));
  let names = byTable.get(dictionary.table);
  if (!names) byTable.set(dictionary.table, (names = new Map()));
  const missing: number[] = [];
  for (const id of ids) if (!names.has(id)) missing.push(id);
  if (missing.length > 0) {
    if (names.size + missing.length > keyNamesCachedMax) names.clear();
    const rows = await sql<Record<string, unknown> & { id: number }>`
      select * from ${sql.table(dictionary.table)} where id in (select value from json_each(${JSON.stringify(missing)}))
    `.execute(db);
    for (const row of rows.rows) names.set(Number(row.id), row);
  }
  return names;
}

/** A group's counts while they are summed in JavaScript. */
interface CountSums {
  /** The key columns' values (a dictionary's id alone for a dictionary-keyed part). */
  keys: unknown[];
  count: number;
  errorCount: number;
}

/**
 * A part's counts grouped by key columns, summed in JavaScript (SQLite, counts alone): the rows
 * come back as one row of JSON arrays (the key columns', or a dictionary-keyed tier's ids, and the
 * counts), and a dictionary's ids are named from `keyNamesOf`. SQLite's `GROUP BY` sends every row
 * through a sorter (a temp B-tree): a 24-hour operations list reads about 16,000 tier rows into
 * 1,300 groups and 2,700 per-minute rows of its unaligned ends into 900, and the sorts were most
 * of those reads (docs/observability-read-api.md). Only for parts whose rows are bounded to a few
 * megabytes of JSON (`rowsFewEnoughToSumInJavaScript`); larger ones SQLite groups.
 */
async function countsSummedInJavaScript(db: Kysely<TelemetryDatabase>, groupBy: readonly string[], part: Part): Promise<Array<Record<string, unknown>>> {
  const dictionary = part.dictionary;
  const keyColumns = dictionary ? [dictionary.column] : groupBy;
  const arrays = await sql<Record<string, string>>`
    select ${sql.join([
      ...keyColumns.map((column, index) => sql`json_group_array(${sql.ref(column)}) as ${sql.ref(`k${index}`)}`),
      sql`json_group_array(count) as counts`,
      sql`json_group_array(error_count) as error_counts`,
    ])}
    from ${part.from}
    where ${sql.join(part.conditions, sql` and `)}
  `.execute(db);
  const row = arrays.rows[0]!;
  const keyLists: unknown[][] = keyColumns.map((_, index) => JSON.parse(row[`k${index}`]!));
  const counts: number[] = JSON.parse(row.counts!);
  const errorCounts: number[] = JSON.parse(row.error_counts!);
  const sums = new TupleMap<CountSums>();
  const groups: CountSums[] = [];
  const tuple: unknown[] = new Array(keyColumns.length);
  for (let index = 0; index < counts.length; index++) {
    for (let column = 0; column < keyColumns.length; column++) tuple[column] = keyLists[column]![index];
    const sum = sums.get(tuple);
    if (sum) {
      sum.count += counts[index]!;
      sum.errorCount += errorCounts[index]!;
      continue;
    }
    const created = { keys: [...tuple], count: counts[index]!, errorCount: errorCounts[index]! };
    sums.set(tuple, created);
    groups.push(created);
  }
  const names = dictionary && groups.length > 0 ? await keyNamesOf(db, dictionary, groups.map((group) => group.keys[0] as number)) : undefined;
  const rows: Array<Record<string, unknown>> = [];
  for (const group of groups) {
    // In the shape `aggregatePart` answers (built by assignment: a spread with computed keys makes slow dictionary-mode objects).
    const out: Record<string, unknown> = {};
    if (dictionary) {
      const named = names!.get(group.keys[0] as number);
      for (const column of groupBy) out[column] = named?.[column];
      out[dictionary.column] = group.keys[0];
    } else for (let column = 0; column < groupBy.length; column++) out[groupBy[column]!] = group.keys[column];
    out.bucket_start = 0;
    out.count = group.count;
    out.error_count = group.errorCount;
    out.duration_sum_ms = 0;
    out.duration_max_ms = 0;
    out.histogram = null;
    out.error_histogram = null;
    rows.push(out);
  }
  return rows;
}

/** Rows of dictionary ids a part may send as JSON arrays to be summed in JavaScript (a few MB); beyond, SQLite groups them. */
const idRowsSummedMax = 1_000_000;
/** The same for rows of key texts (five strings a row). */
const textRowsSummedMax = 100_000;
/** Keys per minute assumed at least, for source minutes whose keys the dictionary may not hold yet. */
const sourceKeysAssumedMin = 1_000;

/**
 * For a query of counts alone, grouped, on SQLite over a dictionary-keyed dimension: whether a
 * part's rows are few enough to be summed in JavaScript (`countsSummedInJavaScript`), bounded by
 * the units it reads times the dictionary's ids (a key has one row per bucket or minute).
 */
async function summedInJavaScript(db: Kysely<TelemetryDatabase>, dialect: Dialect, query: RollupAggregateQuery): Promise<((part: Part) => boolean) | undefined> {
  const dictionary = (query.tiers ?? tierDimensions[query.table]).dictionary;
  const countsAlone = query.countsOnly && query.bucketMs === undefined && !query.withHistogram && !query.withErrorHistogram && (query.extraColumns ?? []).length === 0;
  if (!countsAlone || !dictionary || dialect !== 'sqlite' || (query.groupBy ?? []).length === 0) return undefined;
  const ids = await sql<{ ids: number }>`select coalesce(max(id), 0) as ids from ${sql.table(dictionary.table)}`.execute(db);
  const keys = Number(ids.rows[0]!.ids);
  return (part) => rowsFewEnoughToSumInJavaScript(part.units, keys, part.dictionary !== undefined);
}

/**
 * Whether a part reading `units` buckets (or source minutes) of a dimension whose dictionary holds
 * `dictionaryIds` ids has rows few enough to come back as JSON arrays: ids for a tier keyed by
 * the dictionary, key texts for the source minutes (whose keys the dictionary may not hold yet).
 */
export function rowsFewEnoughToSumInJavaScript(units: number, dictionaryIds: number, keyedByDictionary: boolean): boolean {
  return keyedByDictionary ? units * dictionaryIds <= idRowsSummedMax : units * Math.max(dictionaryIds, sourceKeysAssumedMin) <= textRowsSummedMax;
}

async function aggregatePart(db: Kysely<TelemetryDatabase>, dialect: Dialect, query: RollupAggregateQuery, part: Part, inJavaScript: boolean): Promise<Array<Record<string, unknown>>> {
  const groupBy = query.groupBy ?? [];
  if (inJavaScript) return countsSummedInJavaScript(db, groupBy, part);
  // A dictionary-keyed part groups by the id, then looks the groups' key columns up.
  const keyed = part.dictionary !== undefined && groupBy.length > 0;
  const keys = keyed ? [part.dictionary!.column] : groupBy;
  const time = sql.ref(part.timeColumn);
  const bucket = query.bucketMs === undefined ? sql`0` : sql`(${time} - (${time} % ${sql.lit(query.bucketMs)}))`;
  const groupColumns = [...keys.map((column) => sql.ref(column)), ...(query.bucketMs === undefined ? [] : [bucket])];
  const grouped = sql<Record<string, unknown>>`
    select ${sql.join([
      ...keys.map((column) => sql.ref(column)),
      sql`${bucket} as bucket_start`,
      sql`sum(count) as count`,
      sql`sum(error_count) as error_count`,
      query.countsOnly ? sql`0 as duration_sum_ms` : sql`sum(duration_sum_ms) as duration_sum_ms`,
      query.countsOnly ? sql`0 as duration_max_ms` : sql`max(duration_max_ms) as duration_max_ms`,
      sql`${query.withHistogram ? histogramAggregate(dialect) : sql`null`} as histogram`,
      sql`${query.withErrorHistogram ? histogramAggregate(dialect, 'error_histogram') : sql`null`} as error_histogram`,
      ...(query.extraColumns ?? []).map((column) => sql`max(${sql.ref(column)}) as ${sql.ref(column)}`),
    ])}
    from ${part.from}
    where ${sql.join(part.conditions, sql` and `)}
    ${groupColumns.length > 0 ? sql`group by ${sql.join(groupColumns)}` : sql``}
  `;
  const result = await (keyed ? withKeyNames(part.dictionary!, groupBy, grouped) : grouped).execute(db);
  return result.rows.filter((row) => row.count !== null);
}

/** The tier grain a query reads: real values for filtered and grouped columns, "all" for the rest. */
function grainOfQuery(dimension: TierDimension, query: RollupAggregateQuery): number {
  const groupBy = query.groupBy ?? [];
  return grainFor(dimension, dimension.cubeColumns.filter((column) => query.equals?.[column] === undefined && !groupBy.includes(column)));
}

function sourceKeyConditions(query: RollupAggregateQuery): RollupCondition[] {
  return Object.entries(query.equals ?? {})
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([column, value]) => sql`${sql.ref(column)} = ${value}`);
}

/** The query's `oneOf` and `where` conditions. */
function furtherConditions(query: RollupAggregateQuery): RollupCondition[] {
  return [...Object.entries(query.oneOf ?? {}).map(([column, values]) => inList(column, values)), ...(query.where ?? [])];
}

/**
 * Where a query's rows come from: clean stretches of the range from the tiers, the minutes the
 * tiers have not caught up with from the per-minute rollups.
 */
async function partsFor({ db, dirtyMinutes }: Omit<RollupSource, 'dialect'>, query: RollupAggregateQuery): Promise<Part[]> {
  const { firstMinuteMs, endMinuteMs } = rollupMinuteBounds(query.range);
  if (endMinuteMs <= firstMinuteMs) return [];
  const dimension = query.tiers ?? tierDimensions[query.table];
  const dirty = await (dirtyMinutes ? dirtyMinutes() : dirtyMinutesNow(db));
  const grain = grainOfQuery(dimension, query);
  const planned = dirty ? planTiers(firstMinuteMs, endMinuteMs, dirty, largestTierWithin(query.bucketMs), dimension.minuteGrains(grain), dimension.sizesMs) : undefined;
  // Scattered dirty minutes make a long OR that no index serves: one range scan is cheaper then.
  const plan =
    planned && planned.sourceMinutes.length <= sourceSpansMax ? planned : { tiers: [], sourceMinutes: [{ fromMs: firstMinuteMs, toMs: endMinuteMs }] };
  const parts: Part[] = [];
  const dictionary = dimension.dictionary;
  const keyIds = dictionary && query.keyIds ? [...new Set(query.keyIds)] : undefined;
  if (plan.tiers.length > 0 && keyIds?.length !== 0) {
    // By dictionary id (`keyIds`): inlined (integers the dictionary gave; a long range times many
    // ids would pass the databases' parameter limits) inside each bucket's term, so that with the
    // bucket named (up to `lookupBucketsMax` of them) the id follows it in the primary key: a
    // look-up per bucket and id. Otherwise the key conditions, for a dictionary-keyed tier as the
    // ids of the keys that pass (a few thousand rows to check, not a join per tier row).
    if (keyIds && !keyIds.every((id) => Number.isSafeInteger(id))) throw new Error('keyIds must be integers');
    const ids = keyIds ? sql` and ${sql.ref(dictionary!.column)} in (${sql.raw(keyIds.join(', '))})` : sql``;
    const bucketCount = plan.tiers.reduce((total, span) => total + (span.toMs - span.fromMs) / span.tierMs, 0);
    const spans = keyIds && bucketCount <= lookupBucketsMax ? plan.tiers.flatMap(singleBuckets) : plan.tiers;
    const keyConditions = [...sourceKeyConditions(query), ...furtherConditions(query)];
    parts.push({
      from: sql.table(dimension.table),
      timeColumn: 'bucket',
      units: bucketCount,
      conditions: [
        sql`(${sql.join(
          spans.map((span) =>
            keyIds && span.toMs - span.fromMs === span.tierMs
              ? sql`(tier_ms = ${span.tierMs} and grain = ${grain} and bucket = ${span.fromMs}${ids})`
              : sql`(tier_ms = ${span.tierMs} and grain = ${grain} and bucket >= ${span.fromMs} and bucket < ${span.toMs}${ids})`,
          ),
          sql` or `,
        )})`,
        ...(keyIds || keyConditions.length === 0
          ? []
          : dictionary
            ? [sql`${sql.ref(dictionary.column)} in (select id from ${sql.table(dictionary.table)} where ${sql.join(keyConditions, sql` and `)})`]
            : keyConditions),
      ],
      dictionary,
      idColumn: dictionary && dimension.keyColumns.every((column) => query.groupBy?.includes(column)) ? dictionary.column : undefined,
    });
  }
  if (plan.sourceMinutes.length > 0) {
    parts.push({
      from: sql.table(query.table),
      timeColumn: 'minute',
      units: plan.sourceMinutes.reduce((total, span) => total + (span.toMs - span.fromMs) / minuteMs, 0),
      conditions: [spansCondition('minute', plan.sourceMinutes), ...sourceKeyConditions(query), ...furtherConditions(query)],
    });
  }
  return parts;
}

/**
 * The distinct values of the `groupBy` columns with data in the range: cheaper than summing
 * when only the keys are wanted.
 */
export async function distinctRollupKeys(source: Omit<RollupSource, 'dialect'>, query: RollupAggregateQuery): Promise<Array<Record<string, string>>> {
  const groupBy = query.groupBy ?? [];
  const seen = new Map<string, Record<string, string>>();
  for (const part of await partsFor(source, query)) {
    const dictionary = part.dictionary;
    const result = await (
      dictionary
        ? sql<Record<string, unknown>>`
            select distinct ${sql.join(groupBy.map((column) => sql.ref(column)))} from ${sql.table(dictionary.table)}
            where id in (select ${sql.ref(dictionary.column)} from ${part.from} where ${sql.join(part.conditions, sql` and `)})
          `
        : sql<Record<string, unknown>>`
            select distinct ${sql.join(groupBy.map((column) => sql.ref(column)))}
            from ${part.from}
            where ${sql.join(part.conditions, sql` and `)}
          `
    ).execute(source.db);
    for (const row of result.rows) {
      const keys = Object.fromEntries(groupBy.map((column) => [column, String(row[column])]));
      seen.set(groupBy.reduce((id, column) => withKeyValue(id, keys[column]!), ''), keys);
    }
  }
  return [...seen.values()];
}

/**
 * Sums a rollup's figures over a range, grouped by key columns and optionally time buckets;
 * histograms are concatenated by the database, merged by the caller.
 */
export async function aggregateRollups(source: RollupSource, query: RollupAggregateQuery): Promise<RollupAggregate[]> {
  const { db, dialect } = source;
  const parts = await partsFor(source, query);
  const groupBy = query.groupBy ?? [];
  const extraColumns = query.extraColumns ?? [];
  const merged = new TupleMap<RollupAggregate>();
  const groups: RollupAggregate[] = [];
  const id: unknown[] = new Array(groupBy.length + 1);
  const inJavaScript = parts.length > 0 ? await summedInJavaScript(db, dialect, query) : undefined;
  for (const part of parts) {
    for (const row of await aggregatePart(db, dialect, query, part, inJavaScript?.(part) ?? false)) {
      const bucketStartMs = Number(row.bucket_start);
      id[0] = bucketStartMs;
      for (let column = 0; column < groupBy.length; column++) id[column + 1] = String(row[groupBy[column]!]);
      const histogram = (row.histogram as string | null) ?? null;
      const errorHistogram = (row.error_histogram as string | null) ?? null;
      const existing = merged.get(id);
      if (!existing) {
        // Plain loops: thousands of groups a request.
        const keys: Record<string, string> = {};
        for (const column of groupBy) keys[column] = String(row[column]);
        const extra: Record<string, string | null> = {};
        for (const column of extraColumns) extra[column] = textOrNull(row[column]);
        const group: RollupAggregate = {
          keys,
          keyId: part.idColumn ? Number(row[part.idColumn]) : undefined,
          bucketStartMs,
          count: Number(row.count),
          errorCount: Number(row.error_count),
          durationSumMs: Number(row.duration_sum_ms),
          durationMaxMs: Number(row.duration_max_ms),
          histogram,
          errorHistogram,
          extra,
        };
        merged.set(id, group);
        groups.push(group);
        continue;
      }
      existing.count += Number(row.count);
      existing.errorCount += Number(row.error_count);
      existing.durationSumMs += Number(row.duration_sum_ms);
      existing.durationMaxMs = Math.max(existing.durationMaxMs, Number(row.duration_max_ms));
      existing.histogram = joinHistograms(existing.histogram, histogram);
      existing.errorHistogram = joinHistograms(existing.errorHistogram, errorHistogram);
      if (part.idColumn) existing.keyId ??= Number(row[part.idColumn]);
      for (const column of extraColumns) existing.extra[column] ??= textOrNull(row[column]);
    }
  }
  return groups;
}

/** The SQL store's rollups (per-minute tables and their tiers) as a `RollupReader`. */
export function sqlRollupReader(source: RollupSource): RollupReader {
  return { aggregate: (query) => aggregateRollups(source, query), distinctKeys: (query) => distinctRollupKeys(source, query) };
}

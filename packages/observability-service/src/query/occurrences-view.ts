import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import { ApiError } from '@playstack/server-kit';
import type { IngestionTables } from '../storage/storage-tables.js';
import { occurrenceFromRow } from './occurrence-record.js';
import { minuteMs, minuteOf } from '../time-units.js';
import { aggregateRollups } from './rollup-aggregate.js';
import { operationTiers } from './rollup-tiers.js';
import type { QueryRange } from './query-range.js';
import { attributeEquals } from './attribute-filter.js';
import { occurrencesLimitMax, type Occurrence, type OccurrencesResponse } from './query-schemas.js';
import type { ReadQuery } from './read-query.js';

export interface OccurrenceListOptions {
  operation?: string | undefined;
  status?: 'ok' | 'error' | undefined;
  /** `attr.<key>=<value>` filters: [key, value] pairs, all of which must match. */
  attributes?: ReadonlyArray<readonly [string, string]>;
  limit: number;
  offset: number;
}

type OccurrenceFilter = (eb: ExpressionBuilder<IngestionTables, 'occurrences'>) => Expression<SqlBool>;

function rawConditions(query: ReadQuery, options: OccurrenceListOptions, fromMs: number, toMs: number): OccurrenceFilter {
  const { filters } = query;
  return (eb) =>
    eb.and([
      eb('started_at', '>=', fromMs),
      eb('started_at', '<', toMs),
      ...(filters.service === undefined ? [] : [eb('service', '=', filters.service)]),
      ...(filters.environment === undefined ? [] : [eb('environment', '=', filters.environment)]),
      ...(options.operation === undefined ? [] : [eb('operation', '=', options.operation)]),
      ...(options.status === undefined ? [] : [eb('status', '=', options.status)]),
      ...(options.attributes ?? []).map(([key, value]) => attributeEquals(query.dialect, key, value)),
    ]);
}

async function countRaw(query: ReadQuery, options: OccurrenceListOptions, fromMs: number, toMs: number): Promise<number> {
  if (toMs <= fromMs) return 0;
  const row = await query.db
    .selectFrom('occurrences')
    .select((eb) => eb.fn.countAll().as('n'))
    .where(rawConditions(query, options, fromMs, toMs))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Occurrences of whole minutes per the operation rollups (through their tiers). The service tiers
 * sum operations away, so an operation filter reads the operation tiers, at the rollup's own key.
 */
async function countWholeMinutes(query: ReadQuery, options: OccurrenceListOptions, whole: QueryRange): Promise<number> {
  const [all] = await aggregateRollups(query, {
    table: 'operation_rollups',
    ...(options.operation === undefined ? {} : { tiers: operationTiers }),
    range: whole,
    equals: { service: query.filters.service, environment: query.filters.environment, operation: options.operation },
  });
  if (!all) return 0;
  return options.status === 'ok' ? all.count - all.errorCount : options.status === 'error' ? all.errorCount : all.count;
}

/**
 * The exact number of matching occurrences without counting millions of raw rows: whole minutes
 * come from the rollups (written in the same transaction as the raw rows, so they agree), the
 * partial minutes at either end from the raw rows. Attribute filters count raw rows.
 */
async function countOccurrences(query: ReadQuery, options: OccurrenceListOptions): Promise<number> {
  const { range } = query;
  // Rollups know nothing of attributes: those counts come from the rows themselves.
  if (options.attributes && options.attributes.length > 0) return countRaw(query, options, range.fromMs, range.toMs);
  const wholeFromMs = Math.ceil(range.fromMs / minuteMs) * minuteMs;
  const wholeToMs = minuteOf(range.toMs);
  if (wholeToMs <= wholeFromMs) return countRaw(query, options, range.fromMs, range.toMs);
  const [wholeMinutes, head, tail] = await Promise.all([
    countWholeMinutes(query, options, { fromMs: wholeFromMs, toMs: wholeToMs }),
    countRaw(query, options, range.fromMs, wholeFromMs),
    countRaw(query, options, wholeToMs, range.toMs),
  ]);
  return wholeMinutes + head + tail;
}

/** A page of occurrences, newest first, with the total matching the query. */
export async function occurrencesView(query: ReadQuery, options: OccurrenceListOptions): Promise<OccurrencesResponse> {
  const limit = Math.min(options.limit, occurrencesLimitMax);
  const [rows, total] = await Promise.all([
    query.db
      .selectFrom('occurrences')
      .selectAll()
      .where(rawConditions(query, options, query.range.fromMs, query.range.toMs))
      .orderBy('started_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .offset(options.offset)
      .execute(),
    countOccurrences(query, options),
  ]);
  return { items: rows.map(occurrenceFromRow), total, limit, offset: options.offset };
}

// Ids are below 2^53: longer digit strings cannot name a stored occurrence.
const occurrenceIdPattern = /^[1-9][0-9]{0,14}$/;

/** One occurrence by the id the service assigned; 404 when there is none. */
export async function occurrenceById(query: Pick<ReadQuery, 'db'>, id: string): Promise<Occurrence> {
  const row = occurrenceIdPattern.test(id)
    ? await query.db.selectFrom('occurrences').selectAll().where('id', '=', Number(id)).executeTakeFirst()
    : undefined;
  if (!row) throw new ApiError('occurrence-not-found', `No occurrence has the id "${id}".`);
  return occurrenceFromRow(row);
}

import { ApiError } from '@playstack/server-kit';
import { attributeFiltersOf } from '../query/attribute-filter.js';
import { parseAttributes, parseJson } from '../query/occurrence-record.js';
import { resolveQueryRange } from '../query/query-range.js';
import { rangeEcho } from '../query/read-query.js';
import { fillBuckets, trendBucketsFor } from '../query/trend-interval.js';
import { parseSeverityMinimum, severityNameOf, severityNames, type SeverityName } from './log-severity.js';
import type { LogSelection, LogStore, StoredLogRecord } from './log-store.js';
import { logsLimitMax, traceLogsMax, type LogRecord, type LogsQuery, type LogsResponse, type LogTrendQuery, type LogTrendResponse, type TraceLogsResponse } from './log-schemas.js';
import { searchTerms } from './log-text-search.js';

/** A stored record in the shape the API serves. */
export function logRecordFromRow(row: StoredLogRecord): LogRecord {
  const timeMs = Number(row.time_ms);
  const severityNumber = Number(row.severity_number);
  return {
    id: String(row.id),
    time: new Date(timeMs).toISOString(),
    timeUnixNano: (BigInt(timeMs) * 1_000_000n + BigInt(row.time_ns)).toString(),
    observedAt: new Date(Number(row.observed_ms)).toISOString(),
    severityNumber,
    severity: severityNameOf(severityNumber),
    severityText: row.severity_text,
    body: row.body === null ? null : Number(row.body_json) === 1 ? parseJson(row.body) : row.body,
    eventName: row.event_name,
    service: row.service,
    environment: row.environment,
    serviceVersion: row.service_version,
    instance: row.instance,
    scope: row.scope_name === null && row.scope_version === null ? null : { name: row.scope_name, version: row.scope_version },
    traceId: row.trace_id,
    spanId: row.span_id,
    traceFlags: Number(row.flags),
    tenantId: row.tenant_id,
    attributes: parseAttributes(row.attributes),
    resourceAttributes: parseAttributes(row.resource_attributes),
    receivedAt: new Date(Number(row.received_at)).toISOString(),
  };
}

function encodeCursor(id: number | string): string {
  return Buffer.from(`log:${id}`).toString('base64url');
}

/** The id a cursor stands for; 400 invalid-cursor for anything this service (its store) did not hand out. */
function decodeCursor(store: LogStore, cursor: string): string {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const id = text.startsWith('log:') ? text.slice(4) : '';
  if (!store.isLogId(id)) throw new ApiError('invalid-cursor', 'cursor is not one this service handed out; start again without it.');
  return id;
}

/** What a list or trend query selects, parsed and checked. */
function selectionOf(query: LogTrendQuery, nowMs: number): LogSelection {
  let severityMin: number | undefined;
  if (query.severity !== undefined) {
    severityMin = parseSeverityMinimum(query.severity);
    if (severityMin === undefined) throw new ApiError('invalid-request', `severity must be one of ${severityNames.slice(1).join(', ')} or a number 1-24 (got "${query.severity}").`);
  }
  return {
    range: resolveQueryRange(query, nowMs),
    filters: { service: query.service, environment: query.environment },
    severityMin,
    traceId: query.traceId?.toLowerCase(),
    terms: query.q === undefined ? undefined : searchTerms(query.q),
    attributes: attributeFiltersOf(query as Record<string, unknown>),
  };
}

/** A page of records, newest first, and the cursor of the next one. */
export async function logsView(store: LogStore, nowMs: number, query: LogsQuery): Promise<LogsResponse> {
  const limit = Math.min(query.limit ?? logsLimitMax, logsLimitMax);
  const beforeId = query.cursor === undefined ? undefined : decodeCursor(store, query.cursor);
  const rows = await store.search({ ...selectionOf(query, nowMs), beforeId, limit: limit + 1 });
  const page = rows.slice(0, limit);
  const nextCursor = rows.length > limit ? encodeCursor(page[page.length - 1]!.id) : null;
  // Ids order records by time between buckets of a fraction of a second and by arrival within
  // one (log-ids.ts): a page shows its records by time, newest first (a stable sort: id order
  // for equal times). The cursor stays the page's last id.
  page.sort((a, b) => b.time_ms - a.time_ms || b.time_ns - a.time_ns);
  return { items: page.map(logRecordFromRow), limit, nextCursor };
}

type SeverityCounts = Record<SeverityName, number>;

function noCounts(): SeverityCounts {
  return Object.fromEntries(severityNames.map((name) => [name, 0])) as SeverityCounts;
}

/** Records per time bucket and named severity; buckets without records are zeros. */
export async function logTrendView(store: LogStore, nowMs: number, query: LogTrendQuery): Promise<LogTrendResponse> {
  const selection = selectionOf(query, nowMs);
  const buckets = trendBucketsFor(selection.range, query.interval);
  const found = new Map<number, { start: string; total: number; counts: SeverityCounts }>();
  for (const count of await store.trend(selection, buckets.intervalMs)) {
    let bucket = found.get(count.bucketStartMs);
    if (!bucket) {
      bucket = { start: new Date(count.bucketStartMs).toISOString(), total: 0, counts: noCounts() };
      found.set(count.bucketStartMs, bucket);
    }
    bucket.total += count.count;
    bucket.counts[severityNameOf(count.severityNumber)] += count.count;
  }
  return {
    ...rangeEcho(selection.range),
    interval: buckets.interval,
    buckets: fillBuckets(buckets, found, (startMs) => ({ start: new Date(startMs).toISOString(), total: 0, counts: noCounts() })),
  };
}

/** A trace's records, earliest first. */
export async function traceLogsView(store: LogStore, traceIdParam: string): Promise<TraceLogsResponse> {
  const traceId = traceIdParam.toLowerCase();
  const rows = await store.traceLogs(traceId, traceLogsMax + 1);
  return { traceId, items: rows.slice(0, traceLogsMax).map(logRecordFromRow), truncated: rows.length > traceLogsMax };
}

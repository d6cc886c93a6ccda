import { ApiError, errorResponses } from '@playstack/server-kit';
import { attributeFiltersOf } from './attribute-filter.js';
import {
  DatabaseQuery,
  DatabaseResponse,
  DependenciesResponse,
  LookupParams,
  LookupResponse,
  Occurrence,
  OccurrenceDurationsQuery,
  OccurrenceDurationsResponse,
  OccurrenceParams,
  OccurrencesQuery,
  OccurrencesResponse,
  OperationsQuery,
  OperationsResponse,
  RangeFilterQuery,
  ServicesResponse,
  SummaryResponse,
  TraceParams,
  TraceResponse,
  TrendQuery,
  TrendResponse,
  databaseStatementsLimitDefault,
  occurrencesLimitDefault,
  operationsLimitDefault,
  countedSpansNote,
} from './query-schemas.js';
import { telemetryReadOf } from './read-query.js';
import { apdexThresholdsFrom } from '../service-settings/service-settings.js';
import type { ObservabilityApp } from '../database.js';

/** The filters the occurrence list and its duration distribution share. */
function searchFiltersOf(query: OccurrenceDurationsQuery) {
  return { operation: query.operation, status: query.status, errorType: query.errorType, httpStatusClass: query.httpStatusClass, attributes: attributeFiltersOf(query) };
}

const rangeNote =
  'Range: `from` inclusive, `to` exclusive, default the last 24 hours. Figures come from per-minute rollups: a minute counts when any part of it lies in the range. ';
const tags = ['query'];
const security = [{ session: [] }];

export interface QueryRoutesOptions {
  /** The Apdex threshold of services that have none of their own. */
  apdexThresholdDefaultMs: number;
  /** Row filters check at most this many occurrences (OCCURRENCE_SEARCH_WINDOW). */
  occurrenceSearchWindow: number;
}

/** The dashboards' read endpoints: services, summary, trend, operations, occurrences, traces, database, dependencies. */
export async function queryRoutes(app: ObservabilityApp, options: QueryRoutesOptions): Promise<void> {
  const thresholds = apdexThresholdsFrom(app.database.db, options.apdexThresholdDefaultMs);
  app.addHook('onRequest', app.requireSession);
  app.addSchema(Occurrence);
  const readQuery = (query: RangeFilterQuery) => telemetryReadOf(app.clock.now(), query);
  const store = app.telemetry;

  app.get(
    '/api/v1/services',
    {
      schema: {
        tags,
        security,
        summary: 'Services seen in the range',
        description: `${rangeNote}Honours from, to, service, environment. Per service: environments, what its figures count, count, error rate, p50/p95/p99, Apdex and its threshold, last seen. ${countedSpansNote}`,
        querystring: RangeFilterQuery,
        response: { 200: ServicesResponse, ...errorResponses(400, 401) },
      },
    },
    async (request) => store.services(readQuery(request.query), thresholds),
  );

  app.get(
    '/api/v1/summary',
    {
      schema: {
        tags,
        security,
        summary: 'Totals over the range',
        description: `${rangeNote}Honours from, to, service, environment. ${countedSpansNote}`,
        querystring: RangeFilterQuery,
        response: { 200: SummaryResponse, ...errorResponses(400, 401) },
      },
    },
    async (request) => store.summary(readQuery(request.query), thresholds),
  );

  app.get(
    '/api/v1/trend',
    {
      schema: {
        tags,
        security,
        summary: 'Volume, errors and latency per time bucket',
        description: `${rangeNote}Honours from, to, service, environment, interval. Buckets are aligned to the interval (UTC); buckets without data are zeros. ${countedSpansNote}`,
        querystring: TrendQuery,
        response: { 200: TrendResponse, ...errorResponses(400, 401) },
      },
    },
    async (request) => store.trend(readQuery(request.query), thresholds, request.query.interval),
  );

  app.get(
    '/api/v1/operations',
    {
      schema: {
        tags,
        security,
        summary: 'Top operations',
        description: `${rangeNote}Honours from, to, service, environment, limit (default 20, 1 to 100), entry. Per service, environment, operation and kind (spans of every kind): count, errors, error rate, p50/p95/p99, whether the service's figures count them (entry) and, for those, Apdex; most occurrences first, ties by operation name.`,
        querystring: OperationsQuery,
        response: { 200: OperationsResponse, ...errorResponses(400, 401) },
      },
    },
    async (request) => store.operations(readQuery(request.query), thresholds, { limit: request.query.limit ?? operationsLimitDefault, entry: request.query.entry }),
  );

  const searchNote =
    'Row filters (attr.<key>=<value>, minDurationMs, maxDurationMs, errorType, httpStatusClass) are checked on the newest OCCURRENCE_SEARCH_WINDOW (default 50,000) occurrences the range and the indexed filters (service, environment, operation, status) select; `search` says how far the search went.';

  app.get(
    '/api/v1/occurrences',
    {
      schema: {
        tags,
        security,
        summary: 'Occurrences, newest first',
        description: `Honours from, to (by start time, \`from\` inclusive, \`to\` exclusive, default the last 24 hours), service, environment, operation, status, errorType, httpStatusClass, minDurationMs, maxDurationMs (both inclusive), attr.<key>=<value> (span or resource attribute; up to 5), limit (default 50, capped at 200), offset; all filters combine with AND. ${searchNote}`,
        querystring: OccurrencesQuery,
        response: { 200: OccurrencesResponse, ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const { query } = request;
      if (query.minDurationMs !== undefined && query.maxDurationMs !== undefined && query.minDurationMs > query.maxDurationMs) {
        throw new ApiError('invalid-request', `querystring.minDurationMs (${query.minDurationMs}) is above maxDurationMs (${query.maxDurationMs}).`);
      }
      return store.occurrences(readQuery(query), {
        ...searchFiltersOf(query),
        window: options.occurrenceSearchWindow,
        minDurationMs: query.minDurationMs,
        maxDurationMs: query.maxDurationMs,
        limit: query.limit ?? occurrencesLimitDefault,
        offset: query.offset ?? 0,
      });
    },
  );

  app.get(
    '/api/v1/occurrences/durations',
    {
      schema: {
        tags,
        security,
        summary: 'How the durations of matching occurrences spread',
        description: `Honours from, to, service, environment, operation, status, errorType, httpStatusClass, attr.<key>=<value>: the filters of /api/v1/occurrences except the duration bounds (the distribution is what a duration range is chosen from). Non-empty log-scale bins, ten per decade of milliseconds, with their counts and error counts. ${searchNote}`,
        querystring: OccurrenceDurationsQuery,
        response: { 200: OccurrenceDurationsResponse, ...errorResponses(400, 401) },
      },
    },
    async (request) => store.occurrenceDurations(readQuery(request.query), { ...searchFiltersOf(request.query), window: options.occurrenceSearchWindow }),
  );

  app.get(
    '/api/v1/lookup/:id',
    {
      schema: {
        tags,
        security,
        summary: 'Find a trace by a trace id or a span id',
        description:
          'Takes no range or filters. A trace id (32 hexadecimal characters) names its trace; a span id (16) names its span and trace (the newest span when several traces reuse the id); either in any case. 404 trace-not-found when nothing stored has the id; 400 for anything else.',
        params: LookupParams,
        response: { 200: LookupResponse, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => store.lookup(request.params.id),
  );

  app.get(
    '/api/v1/occurrences/:id',
    {
      schema: {
        tags,
        security,
        summary: 'One occurrence',
        description: 'Takes no range or filters. 404 occurrence-not-found when there is no such occurrence.',
        params: OccurrenceParams,
        response: { 200: Occurrence, ...errorResponses(401, 404) },
      },
    },
    async (request) => store.occurrence(request.params.id),
  );

  app.get(
    '/api/v1/traces/:traceId',
    {
      schema: {
        tags,
        security,
        summary: 'A trace as a waterfall tree',
        description:
          'Takes no range or filters. Every stored occurrence of the trace (up to 10,000, earliest first), depth-first with depth and offset; spans whose parent is missing are shown as roots. 404 trace-not-found when none is stored.',
        params: TraceParams,
        response: { 200: TraceResponse, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => store.trace(request.params.traceId),
  );

  app.get(
    '/api/v1/database',
    {
      schema: {
        tags,
        security,
        summary: 'Database statements',
        description: `${rangeNote}Honours from, to, service, environment, limit. Per database system and normalized statement: count, errors, total time, p50/p95.`,
        querystring: DatabaseQuery,
        response: { 200: DatabaseResponse, ...errorResponses(400, 401) },
      },
    },
    async (request) => store.database(readQuery(request.query), request.query.limit ?? databaseStatementsLimitDefault),
  );

  app.get(
    '/api/v1/dependencies',
    {
      schema: {
        tags,
        security,
        summary: 'Dependency edges between services',
        description: `${rangeNote}Honours from, to, service (edges where the service is the caller or the callee), environment.`,
        querystring: RangeFilterQuery,
        response: { 200: DependenciesResponse, ...errorResponses(400, 401) },
      },
    },
    async (request) => store.dependencies(readQuery(request.query)),
  );
}

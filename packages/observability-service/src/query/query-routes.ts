import type { FastifyInstance } from 'fastify';
import { errorResponses, type App } from '@playstack/server-kit';
import { databaseView } from './database-view.js';
import { dependenciesView } from './dependencies-view.js';
import { attributeFiltersOf } from './attribute-filter.js';
import { occurrenceById, occurrencesView } from './occurrences-view.js';
import { operationsView } from './operations-view.js';
import {
  DatabaseQuery,
  DatabaseResponse,
  DependenciesResponse,
  Occurrence,
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
import { ingestionDb, readQueryOf } from './read-query.js';
import { apdexThresholdsFrom } from '../service-settings/service-settings.js';
import { servicesView } from './services-view.js';
import { summaryView } from './summary-view.js';
import { traceView } from './trace-view.js';
import { trendView } from './trend-view.js';

const rangeNote =
  'Range: `from` inclusive, `to` exclusive, default the last 24 hours. Figures come from per-minute rollups: a minute counts when any part of it lies in the range. ';
const tags = ['query'];
const security = [{ session: [] }];

export interface QueryRoutesOptions {
  /** The Apdex threshold of services that have none of their own. */
  apdexThresholdDefaultMs: number;
}

/** The dashboards' read endpoints: services, summary, trend, operations, occurrences, traces, database, dependencies. */
export async function queryRoutes(fastify: FastifyInstance, options: QueryRoutesOptions): Promise<void> {
  const app = fastify as unknown as App;
  const thresholds = apdexThresholdsFrom(app.database.db, options.apdexThresholdDefaultMs);
  app.addHook('onRequest', app.requireSession);
  app.addSchema(Occurrence);
  const readQuery = (query: RangeFilterQuery) => readQueryOf(app.database, app.clock.now(), query);

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
    async (request) => servicesView(readQuery(request.query), thresholds),
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
    async (request) => summaryView(readQuery(request.query), thresholds),
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
    async (request) => trendView(readQuery(request.query), thresholds, request.query.interval),
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
    async (request) => operationsView(readQuery(request.query), thresholds, { limit: request.query.limit ?? operationsLimitDefault, entry: request.query.entry }),
  );

  app.get(
    '/api/v1/occurrences',
    {
      schema: {
        tags,
        security,
        summary: 'Occurrences, newest first',
        description:
          'Honours from, to (by start time, `from` inclusive, `to` exclusive, default the last 24 hours), service, environment, operation, status, attr.<key>=<value> (span or resource attribute; up to 5), limit (default 50, capped at 200), offset.',
        querystring: OccurrencesQuery,
        response: { 200: OccurrencesResponse, ...errorResponses(400, 401) },
      },
    },
    async (request) =>
      occurrencesView(readQuery(request.query), {
        operation: request.query.operation,
        status: request.query.status,
        attributes: attributeFiltersOf(request.query),
        limit: request.query.limit ?? occurrencesLimitDefault,
        offset: request.query.offset ?? 0,
      }),
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
    async (request) => occurrenceById({ db: ingestionDb(app.database) }, request.params.id),
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
    async (request) => traceView({ db: ingestionDb(app.database) }, request.params.traceId),
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
    async (request) => databaseView(readQuery(request.query), request.query.limit ?? databaseStatementsLimitDefault),
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
    async (request) => dependenciesView(readQuery(request.query)),
  );
}

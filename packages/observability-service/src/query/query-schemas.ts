import { Type, type Static, type TProperties } from '@sinclair/typebox';
import { trendIntervalNames } from './trend-interval.js';

// Query-string parameters, shared so every endpoint describes them in the same words.

const Timestamp = Type.String({ format: 'date-time' });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T, options: { description?: string } = {}) => Type.Union([schema, Type.Null()], options);
const AttributeMap = Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()]));
const Name = (description: string) => Type.String({ minLength: 1, maxLength: 256, description });

export const rangeParameters = {
  from: Type.Optional(
    Type.String({
      maxLength: 64,
      description: 'Start of the range, inclusive: ISO 8601 date-time with a zone, or a date (midnight UTC). Default: 24 hours before `to`.',
      examples: ['2026-11-21T00:00:00Z'],
    }),
  ),
  to: Type.Optional(
    Type.String({ maxLength: 64, description: 'End of the range, exclusive: ISO 8601 date-time with a zone, or a date. Default: now.', examples: ['2026-11-22T00:00:00Z'] }),
  ),
} satisfies TProperties;

export const filterParameters = {
  service: Type.Optional(Name('Only data from this service (the envelope resource `service`).')),
  environment: Type.Optional(Name('Only data from this environment (the envelope resource `environment`).')),
} satisfies TProperties;

export const intervalParameter = {
  interval: Type.Optional(
    Type.Union(
      trendIntervalNames.map((name) => Type.Literal(name)),
      { description: 'Bucket size. Default: the finest that gives at most 200 buckets over the range. At most 1440 buckets.' },
    ),
  ),
} satisfies TProperties;

/** A `limit` parameter of 1 to `max` items, `defaultValue` when absent; outside that is 400 invalid-request. */
const limitParameter = (max: number, defaultValue: number, description: string) =>
  ({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: max, default: defaultValue, description })) }) satisfies TProperties;

export const RangeFilterQuery = Type.Object({ ...rangeParameters, ...filterParameters });
export type RangeFilterQuery = Static<typeof RangeFilterQuery>;

export const TrendQuery = Type.Object({ ...rangeParameters, ...filterParameters, ...intervalParameter });
export type TrendQuery = Static<typeof TrendQuery>;

/** Values above this are served as this. */
export const occurrencesLimitMax = 200;
export const occurrencesLimitDefault = 50;
export const occurrencesOffsetMax = 10_000_000;

/** At most this many `attr.<key>=<value>` filters in one query (each is checked on every row of the range). */
export const attributeFiltersMax = 5;
/** `attr.` then an attribute name of 1-128 characters (no double quote or backslash). */
export const attributeFilterPattern = '^attr\\.[^"\\\\]{1,128}$';

export const httpStatusClasses = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;
export type HttpStatusClass = (typeof httpStatusClasses)[number];

/** The status codes of a class: [from, to). */
export function httpStatusClassBounds(statusClass: HttpStatusClass): [number, number] {
  const hundreds = Number(statusClass[0]) * 100;
  return [hundreds, hundreds + 100];
}

const attributeFilterProperties = {
  patternProperties: {
    [attributeFilterPattern]: Type.String({
      maxLength: 1024,
      description: `attr.<key>=<value>: only occurrences whose span attribute or resource attribute <key> equals <value> (numbers and booleans as written, e.g. attr.order.items=3); up to ${attributeFiltersMax}, combined with AND`,
    }),
  },
};

const searchFilterParameters = {
  operation: Type.Optional(Name('Only occurrences of this operation.')),
  status: Type.Optional(Type.Union([Type.Literal('ok'), Type.Literal('error')], { description: 'Only occurrences with this status.' })),
  errorType: Type.Optional(Name('Only occurrences whose error type (`error.type`, the exception type) is exactly this.')),
  httpStatusClass: Type.Optional(
    Type.Union(
      httpStatusClasses.map((name) => Type.Literal(name)),
      { description: 'Only occurrences whose HTTP status code is in this class (`4xx`: 400 to 499).' },
    ),
  ),
} satisfies TProperties;

const durationFilterParameters = {
  minDurationMs: Type.Optional(Type.Number({ minimum: 0, maximum: 86_400_000, description: 'Only occurrences lasting at least this many milliseconds.' })),
  maxDurationMs: Type.Optional(Type.Number({ minimum: 0, maximum: 86_400_000, description: 'Only occurrences lasting at most this many milliseconds.' })),
} satisfies TProperties;

export const OccurrencesQuery = Type.Object(
  {
    ...rangeParameters,
    ...filterParameters,
    ...searchFilterParameters,
    ...durationFilterParameters,
    limit: Type.Optional(Type.Integer({ minimum: 1, default: occurrencesLimitDefault, description: `Page size; values above ${occurrencesLimitMax} are capped at ${occurrencesLimitMax}.` })),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: occurrencesOffsetMax, default: 0, description: 'Occurrences to skip, newest first.' })),
  },
  attributeFilterProperties,
);
export type OccurrencesQuery = Static<typeof OccurrencesQuery>;

export const databaseStatementsLimitDefault = 100;
export const databaseStatementsLimitMax = 1000;

export const DatabaseQuery = Type.Object({
  ...rangeParameters,
  ...filterParameters,
  ...limitParameter(databaseStatementsLimitMax, databaseStatementsLimitDefault, 'How many statements, the most time-consuming first.'),
});
export type DatabaseQuery = Static<typeof DatabaseQuery>;

export const operationsLimitDefault = 20;
export const operationsLimitMax = 100;

export const OperationsQuery = Type.Object({
  ...rangeParameters,
  ...filterParameters,
  ...limitParameter(operationsLimitMax, operationsLimitDefault, `How many operations, the busiest first (1 to ${operationsLimitMax}; outside that is 400 invalid-request).`),
  entry: Type.Optional(
    Type.Boolean({ description: 'true: only operations whose spans their service’s figures count (`entry`); false: only the others (outgoing calls, internal steps). Default both.' }),
  ),
});
export type OperationsQuery = Static<typeof OperationsQuery>;

export const OccurrenceDurationsQuery = Type.Object({ ...rangeParameters, ...filterParameters, ...searchFilterParameters }, attributeFilterProperties);
export type OccurrenceDurationsQuery = Static<typeof OccurrenceDurationsQuery>;

export const OccurrenceParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 32, description: 'The occurrence id the service assigned.' }) });
export type OccurrenceParams = Static<typeof OccurrenceParams>;

export const LookupParams = Type.Object({
  id: Type.String({ pattern: '^[0-9a-fA-F]{16}$|^[0-9a-fA-F]{32}$', description: 'A trace id (32 hexadecimal characters) or a span id (16).' }),
});
export type LookupParams = Static<typeof LookupParams>;

export const LookupResponse = Type.Object(
  {
    kind: Type.Union([Type.Literal('trace'), Type.Literal('span')], { description: 'What the id named.' }),
    traceId: Type.String({ description: 'The trace to open.' }),
    spanId: Nullable(Type.String({ description: 'The span, for a span id; null for a trace id.' })),
    occurrenceId: Nullable(Type.String({ description: 'The span\'s occurrence, for a span id.' })),
  },
  { $id: 'LookupResponse' },
);
export type LookupResponse = Static<typeof LookupResponse>;

export const TraceParams = Type.Object({ traceId: Type.String({ pattern: '^[0-9a-fA-F]{32}$', description: '32 hexadecimal characters.' }) });
export type TraceParams = Static<typeof TraceParams>;

// Responses.

const RangeEcho = { from: Timestamp, to: Timestamp };

const LatencyFigures = {
  p50Ms: Nullable(Type.Number({ description: 'Median latency in ms (within 2%); null without data.' })),
  p95Ms: Nullable(Type.Number({ description: '95th percentile latency in ms (within 2%).' })),
  p99Ms: Nullable(Type.Number({ description: '99th percentile latency in ms (within 2%).' })),
};

const CountFigures = {
  count: Type.Integer({ description: 'Occurrences.' }),
  errorCount: Type.Integer({ description: 'Occurrences with status error.' }),
  errorRate: Type.Number({ description: 'errorCount / count; 0 without data.' }),
};

/**
 * Which spans the figures of a service (services, summary, trend) count, said on each of them:
 * the user must never wonder whether database calls are "requests".
 */
export const countedSpansNote =
  'Count, errors, latency and Apdex count each service’s entry spans (kind server or consumer); a service with no entry span in the range and filters (a worker, a batch job) counts its root spans of kind internal instead. Outgoing calls (client, producer) and internal child spans are not requests: they appear in operations, database and dependencies.';

const Apdex = Nullable(
  Type.Number({
    minimum: 0,
    maximum: 1,
    description:
      'Apdex of the counted spans: (satisfied + tolerating / 2) / count, satisfied at or below the service’s threshold T, tolerating up to 4T, errors frustrated; latencies compared at the histograms’ 2% resolution; null without data.',
  }),
);

export const ServicesResponse = Type.Object(
  {
    ...RangeEcho,
    services: Type.Array(
      Type.Object({
        service: Type.String(),
        environments: Type.Array(Type.String()),
        countedSpans: Type.Union([Type.Literal('entry'), Type.Literal('root'), Type.Literal('none')], {
          description: 'What the figures count: `entry` spans (server, consumer), `root` internal spans (the service has no entry span in the range), or `none` (only outgoing calls and child spans: zero figures).',
        }),
        ...CountFigures,
        ...LatencyFigures,
        apdex: Apdex,
        apdexThresholdMs: Type.Number({ description: 'The service’s Apdex threshold T (PUT /api/v1/services/{service}/settings; default APDEX_THRESHOLD_MS).' }),
        lastSeenAt: Type.String({ format: 'date-time', description: 'Start of the service’s latest occurrence (of any kind) in the range.' }),
      }),
    ),
  },
  { $id: 'ServicesResponse', description: countedSpansNote },
);
export type ServicesResponse = Static<typeof ServicesResponse>;

export const SummaryResponse = Type.Object(
  {
    ...RangeEcho,
    ...CountFigures,
    ...LatencyFigures,
    averageMs: Nullable(Type.Number({ description: 'Mean latency in ms (exact).' })),
    maxMs: Nullable(Type.Number({ description: 'Largest latency in ms (exact).' })),
    perMinute: Type.Number({ description: 'Counted spans (requests) per minute over the range.' }),
    apdex: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], { description: 'Apdex over the counted spans, each service’s at its own threshold; null without data.' }),
    services: Type.Integer({ description: 'Services with data (spans of any kind) in the range.' }),
  },
  { $id: 'SummaryResponse', description: countedSpansNote },
);
export type SummaryResponse = Static<typeof SummaryResponse>;

export const TrendResponse = Type.Object(
  {
    ...RangeEcho,
    interval: Type.String({ description: 'The bucket size used.' }),
    buckets: Type.Array(Type.Object({ start: Timestamp, ...CountFigures, ...LatencyFigures, apdex: Apdex }), { description: 'Every bucket of the range in time order; empty ones as zeros.' }),
  },
  { $id: 'TrendResponse', description: countedSpansNote },
);
export type TrendResponse = Static<typeof TrendResponse>;

export const Occurrence = Type.Object(
  {
    id: Type.String(),
    clientId: Nullable(Type.String({ description: 'The id the sender gave, if any.' })),
    traceId: Type.String(),
    spanId: Type.String(),
    parentSpanId: Nullable(Type.String()),
    service: Type.String(),
    environment: Type.String(),
    serviceVersion: Nullable(Type.String()),
    instance: Nullable(Type.String()),
    operation: Type.String(),
    kind: Type.String(),
    startedAt: Timestamp,
    durationMs: Type.Number(),
    status: Type.String(),
    tenantId: Nullable(Type.String()),
    http: Nullable(Type.Object({ method: Nullable(Type.String()), route: Nullable(Type.String()), statusCode: Nullable(Type.Integer()) })),
    db: Nullable(Type.Object({ system: Nullable(Type.String()), statement: Nullable(Type.String()), operation: Nullable(Type.String()) })),
    peer: Nullable(Type.Object({ service: Nullable(Type.String()), address: Nullable(Type.String()) })),
    error: Nullable(Type.Object({ type: Nullable(Type.String()), message: Nullable(Type.String()), stack: Nullable(Type.String()) })),
    errorGroupId: Nullable(Type.String({ description: 'The error group (GET /api/v1/errors/:groupId) of an error occurrence with error details; else null.' })),
    attributes: Nullable(AttributeMap),
    resourceAttributes: Nullable(AttributeMap, { description: 'OTLP: the resource attributes other than service, environment, version and instance' }),
    events: Nullable(
      Type.Array(
        Type.Object({
          name: Type.String(),
          time: Timestamp,
          offsetMs: Type.Number({ description: 'From the span start to the event (fractions kept)' }),
          attributes: Nullable(AttributeMap),
        }),
      ),
      { description: 'OTLP span events, in the order sent (exception events included)' },
    ),
    links: Nullable(
      Type.Array(
        Type.Object({
          traceId: Type.String(),
          spanId: Type.String(),
          traceState: Nullable(Type.String()),
          attributes: Nullable(AttributeMap),
        }),
      ),
      { description: 'OTLP span links: spans of this or other traces this one relates to' },
    ),
    receivedAt: Timestamp,
  },
  { $id: 'Occurrence' },
);
export type Occurrence = Static<typeof Occurrence>;

const OccurrenceSearch = Type.Object(
  {
    window: Type.Integer({ description: 'At most this many occurrences are checked (OCCURRENCE_SEARCH_WINDOW): the newest that the range and the indexed filters (service, environment, operation, status) select.' }),
    limited: Type.Boolean({ description: 'True when the range holds more than the window: older occurrences were not searched.' }),
    searchedFrom: Nullable(Timestamp, { description: 'When limited: the start of the oldest occurrence checked; null when the whole range was searched.' }),
  },
  { description: 'Present when a filter is checked on rows (attr., duration, errorType, httpStatusClass): how far the search went. Null otherwise (the total is exact over the range).' },
);
export type OccurrenceSearch = Static<typeof OccurrenceSearch>;

export const OccurrencesResponse = Type.Object(
  {
    items: Type.Array(Type.Ref('Occurrence'), { description: 'Newest first.' }),
    total: Type.Integer({ description: 'Occurrences matching the query (in the search window, when `search` is not null).' }),
    limit: Type.Integer({ description: 'The page size used (after the cap).' }),
    offset: Type.Integer(),
    search: Nullable(OccurrenceSearch),
  },
  { $id: 'OccurrencesResponse' },
);
export type OccurrencesResponse = { items: Occurrence[]; total: number; limit: number; offset: number; search: OccurrenceSearch | null };

export const OccurrenceDurationsResponse = Type.Object(
  {
    ...RangeEcho,
    bins: Type.Array(
      Type.Object({
        fromMs: Type.Number({ description: 'Lower bound, inclusive (rounded to the microsecond).' }),
        toMs: Type.Number({ description: 'Upper bound, exclusive.' }),
        count: Type.Integer(),
        errorCount: Type.Integer(),
      }),
      { description: 'Non-empty log-scale bins, ten per decade of milliseconds, shortest first.' },
    ),
    total: Type.Integer({ description: 'Occurrences in the bins.' }),
    search: OccurrenceSearch,
  },
  { $id: 'OccurrenceDurationsResponse' },
);
export type OccurrenceDurationsResponse = Static<typeof OccurrenceDurationsResponse>;

export const TraceResponse = Type.Object(
  {
    traceId: Type.String(),
    startedAt: Timestamp,
    durationMs: Type.Number({ description: 'From the first start to the last end.' }),
    services: Type.Array(Type.String(), { description: 'Services involved, in waterfall order.' }),
    spanCount: Type.Integer({ description: 'Occurrences stored for the trace.' }),
    truncated: Type.Boolean({ description: 'True when the trace has more spans than are returned.' }),
    spans: Type.Array(
      Type.Intersect([
        Type.Ref('Occurrence'),
        Type.Object({
          depth: Type.Integer({ description: '0 for roots and for spans whose parent is missing.' }),
          offsetMs: Type.Number({ description: 'From the trace start to this span’s start.' }),
          parentMissing: Type.Boolean({ description: 'The span names a parent that is not in the trace.' }),
        }),
      ]),
      { description: 'Depth-first, children in start order: the rows of a waterfall.' },
    ),
  },
  { $id: 'TraceResponse' },
);

export const DatabaseResponse = Type.Object(
  {
    ...RangeEcho,
    statements: Type.Array(
      Type.Object({
        system: Type.String(),
        statement: Type.String({ description: 'Normalized: literals replaced by `?`.' }),
        operation: Nullable(Type.String()),
        count: Type.Integer(),
        errorCount: Type.Integer(),
        totalMs: Type.Number({ description: 'Sum of the durations (exact).' }),
        p50Ms: LatencyFigures.p50Ms,
        p95Ms: LatencyFigures.p95Ms,
      }),
      { description: 'Most total time first.' },
    ),
  },
  { $id: 'DatabaseResponse' },
);
export type DatabaseResponse = Static<typeof DatabaseResponse>;

export const OperationsResponse = Type.Object(
  {
    ...RangeEcho,
    operations: Type.Array(
      Type.Object({
        service: Type.String(),
        environment: Type.String(),
        operation: Type.String({ description: 'The occurrence `operation`, e.g. `GET /orders/:id`.' }),
        kind: Type.String({ description: '`server`, `client`, `internal`, `producer` or `consumer`.' }),
        entry: Type.Boolean({
          description: 'True when these spans are the ones the service’s figures count (entry spans, or the root internal spans of a service without entries); false for outgoing calls and internal child spans.',
        }),
        ...CountFigures,
        ...LatencyFigures,
        apdex: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], { description: 'Apdex at the service’s threshold, for entry operations; null for the others.' }),
      }),
      {
        description:
          'Per service, environment, operation, kind and entry: spans of every kind (the root spans of an internal operation in a service without entry spans form their own entry row); most occurrences first, ties by operation name.',
      },
    ),
  },
  { $id: 'OperationsResponse' },
);
export type OperationsResponse = Static<typeof OperationsResponse>;

export const DependenciesResponse = Type.Object(
  {
    ...RangeEcho,
    edges: Type.Array(
      Type.Object({
        source: Type.String({ description: 'The calling service.' }),
        target: Type.String({ description: 'The called service, address or database system.' }),
        targetKind: Type.String({ description: '`service`, `address` or `database`.' }),
        count: Type.Integer(),
        errorCount: Type.Integer(),
        p50Ms: LatencyFigures.p50Ms,
        p95Ms: LatencyFigures.p95Ms,
      }),
      { description: 'Busiest first; edges of equal counts by source, target and kind, in code-unit order.' },
    ),
  },
  { $id: 'DependenciesResponse' },
);
export type DependenciesResponse = Static<typeof DependenciesResponse>;

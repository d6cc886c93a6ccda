import { Type, type Static, type TProperties } from '@sinclair/typebox';
import { attributeFilterPattern, attributeFiltersMax, filterParameters, intervalParameter, rangeParameters } from '../query/query-schemas.js';
import { maxSearchTerms } from './log-text-search.js';
import { severityNames, severityRanges } from './log-severity.js';

const Timestamp = Type.String({ format: 'date-time' });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T, options: { description?: string } = {}) => Type.Union([schema, Type.Null()], options);
const AttributeMap = Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()]));

/** Values above this are served as this. */
export const logsLimitMax = 200;
export const logsLimitDefault = 50;
/** A trace page shows at most this many of the trace's log records (the earliest). */
export const traceLogsMax = 1_000;

const severityNamesText = severityRanges.map((range) => `${range.name} (${range.first})`).join(', ');

/** The parameters that select records, shared by the list and the trend. */
const selectionParameters = {
  ...rangeParameters,
  ...filterParameters,
  severity: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 8,
      description: `Minimum severity: a name, ${severityNamesText}, or a severity number 1-24. Records of unspecified severity are left out.`,
      examples: ['warn'],
    }),
  ),
  traceId: Type.Optional(Type.String({ pattern: '^[0-9a-fA-F]{32}$', description: 'Only records emitted in this trace (32 hexadecimal characters).' })),
  q: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 512,
      description: `Text search in the body: up to ${maxSearchTerms} words, all required; whole words, case-insensitive, no stemming (\`lock\` does not find "locks" or "blocked"). A word with punctuation inside (\`api/players\`) must occur as written.`,
    }),
  ),
} satisfies TProperties;

const attributeFilters = {
  patternProperties: {
    [attributeFilterPattern]: Type.String({
      maxLength: 1024,
      description: `attr.<key>=<value>: only records whose attribute or resource attribute <key> equals <value> (numbers and booleans as written); up to ${attributeFiltersMax}, combined with AND`,
    }),
  },
};

export const LogsQuery = Type.Object(
  {
    ...selectionParameters,
    limit: Type.Optional(Type.Integer({ minimum: 1, default: logsLimitDefault, description: `Page size; values above ${logsLimitMax} are capped at ${logsLimitMax}.` })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'The `nextCursor` of the previous page: the records older than its last one.' })),
  },
  attributeFilters,
);
export type LogsQuery = Static<typeof LogsQuery>;

export const LogTrendQuery = Type.Object({ ...selectionParameters, ...intervalParameter }, attributeFilters);
export type LogTrendQuery = Static<typeof LogTrendQuery>;

export const TraceLogsParams = Type.Object({ traceId: Type.String({ pattern: '^[0-9a-fA-F]{32}$', description: '32 hexadecimal characters.' }) });
export type TraceLogsParams = Static<typeof TraceLogsParams>;

const SeverityName = Type.Union(
  severityNames.map((name) => Type.Literal(name)),
  { description: 'The named range of severityNumber (unspecified for 0).' },
);

export const LogRecord = Type.Object(
  {
    id: Type.String({ description: 'Assigned by the service; ids sort as the records’ times do.' }),
    time: Timestamp,
    timeUnixNano: Type.String({ pattern: '^[0-9]+$', description: 'The time exactly, in nanoseconds since the epoch (a decimal string).' }),
    observedAt: Timestamp,
    severityNumber: Type.Integer({ minimum: 0, maximum: 24, description: 'OpenTelemetry severity number; 0 unspecified.' }),
    severity: SeverityName,
    severityText: Nullable(Type.String()),
    body: Type.Unknown({ description: 'The message: a string, a structured value (object, array, number, boolean), or null.' }),
    eventName: Nullable(Type.String()),
    service: Type.String(),
    environment: Type.String(),
    serviceVersion: Nullable(Type.String()),
    instance: Nullable(Type.String()),
    scope: Nullable(Type.Object({ name: Nullable(Type.String()), version: Nullable(Type.String()) }, { description: 'The logger (instrumentation scope).' })),
    traceId: Nullable(Type.String()),
    spanId: Nullable(Type.String()),
    traceFlags: Type.Integer({ minimum: 0, maximum: 255, description: 'W3C trace flags (1: sampled).' }),
    tenantId: Nullable(Type.String()),
    attributes: Nullable(AttributeMap),
    resourceAttributes: Nullable(AttributeMap, { description: 'The resource attributes other than service, environment, version and instance' }),
    receivedAt: Timestamp,
  },
  { $id: 'LogRecord' },
);
export type LogRecord = Static<typeof LogRecord>;

export const LogsResponse = Type.Object(
  {
    items: Type.Array(Type.Ref('LogRecord'), { description: 'Newest first.' }),
    limit: Type.Integer({ description: 'The page size used (after the cap).' }),
    nextCursor: Nullable(Type.String({ description: 'Pass as `cursor` for the next (older) page; null on the last page.' })),
  },
  { $id: 'LogsResponse' },
);
export type LogsResponse = { items: LogRecord[]; limit: number; nextCursor: string | null };

const SeverityCounts = Type.Object(
  Object.fromEntries(severityNames.map((name) => [name, Type.Integer({ minimum: 0 })])),
  { description: 'Records per named severity range.' },
);

export const LogTrendResponse = Type.Object(
  {
    from: Timestamp,
    to: Timestamp,
    interval: Type.String({ description: 'The bucket size used.' }),
    buckets: Type.Array(Type.Object({ start: Timestamp, total: Type.Integer({ minimum: 0 }), counts: SeverityCounts }), {
      description: 'Every bucket of the range in time order; empty ones as zeros.',
    }),
  },
  { $id: 'LogTrendResponse' },
);
export type LogTrendResponse = Static<typeof LogTrendResponse>;

export const TraceLogsResponse = Type.Object(
  {
    traceId: Type.String(),
    items: Type.Array(Type.Ref('LogRecord'), { description: `Earliest first; at most ${traceLogsMax}.` }),
    truncated: Type.Boolean({ description: 'True when the trace has more records than are returned.' }),
  },
  { $id: 'TraceLogsResponse' },
);
export type TraceLogsResponse = { traceId: string; items: LogRecord[]; truncated: boolean };

/**
 * Shapes of the service's answers, as the dashboard reads them. They mirror the service's
 * TypeBox schemas (packages/observability-service/src/*\/*-schemas.ts); the browser tests run
 * against the real service, so a drift shows up there.
 */

export type Role = 'admin' | 'member';

export interface SessionUser {
  id: string;
  email: string;
  name: string;
  role: Role;
}

export interface SessionResponse {
  user: SessionUser;
  csrfToken: string;
}

interface RangeEcho {
  from: string;
  to: string;
}

interface LatencyFigures {
  p50Ms: number | null;
  p95Ms: number | null;
  p99Ms: number | null;
}

interface CountFigures {
  count: number;
  errorCount: number;
  errorRate: number;
}

/** What a service's figures count: entry spans, internal root spans (no entry spans), or nothing. */
export type CountedSpans = 'entry' | 'root' | 'none';

export interface ServiceRow extends CountFigures, LatencyFigures {
  service: string;
  environments: string[];
  countedSpans: CountedSpans;
  apdex: number | null;
  apdexThresholdMs: number;
  lastSeenAt: string;
}

export interface ServiceSettings {
  service: string;
  apdexThresholdMs: number;
  apdexThresholdIsDefault: boolean;
  updatedAt: string | null;
}

export interface ServicesResponse extends RangeEcho {
  services: ServiceRow[];
}

export interface SummaryResponse extends RangeEcho, CountFigures, LatencyFigures {
  averageMs: number | null;
  maxMs: number | null;
  perMinute: number;
  apdex: number | null;
  services: number;
}

export interface TrendBucket extends CountFigures, LatencyFigures {
  start: string;
  apdex: number | null;
}

export interface TrendResponse extends RangeEcho {
  interval: string;
  buckets: TrendBucket[];
}

/** One row of `GET /api/v1/operations`: a service's operation in one environment, of one kind. */
export interface OperationRow extends CountFigures, LatencyFigures {
  service: string;
  environment: string;
  operation: string;
  kind: string;
  /** Counted in the service's figures (entry spans, or root spans of a service without entries). */
  entry: boolean;
  apdex: number | null;
}

export interface OperationsResponse extends RangeEcho {
  /** Most occurrences first, ties by operation name. */
  operations: OperationRow[];
}

export type AttributeValue = string | number | boolean;

export interface Occurrence {
  id: string;
  clientId: string | null;
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  service: string;
  environment: string;
  serviceVersion: string | null;
  instance: string | null;
  operation: string;
  kind: string;
  startedAt: string;
  durationMs: number;
  status: string;
  tenantId: string | null;
  http: { method: string | null; route: string | null; statusCode: number | null } | null;
  db: { system: string | null; statement: string | null; operation: string | null } | null;
  peer: { service: string | null; address: string | null } | null;
  error: { type: string | null; message: string | null; stack: string | null } | null;
  errorGroupId: string | null;
  attributes: Record<string, AttributeValue> | null;
  /** OTLP: the resource's attributes other than service, environment, version and instance. */
  resourceAttributes: Record<string, AttributeValue> | null;
  /** OTLP span events (exception events included), in the order sent. */
  events: SpanEvent[] | null;
  /** OTLP span links to spans of this or other traces. */
  links: SpanLink[] | null;
  receivedAt: string;
}

export interface SpanEvent {
  name: string;
  time: string;
  /** From the span's start. */
  offsetMs: number;
  attributes: Record<string, AttributeValue> | null;
}

export interface SpanLink {
  traceId: string;
  spanId: string;
  traceState: string | null;
  attributes: Record<string, AttributeValue> | null;
}

/** How far a search with row filters went (null without them). */
export interface OccurrenceSearch {
  window: number;
  limited: boolean;
  searchedFrom: string | null;
}

export interface OccurrencesResponse {
  items: Occurrence[];
  total: number;
  limit: number;
  offset: number;
  search: OccurrenceSearch | null;
}

export interface OccurrenceDurationsResponse {
  from: string;
  to: string;
  bins: Array<{ fromMs: number; toMs: number; count: number; errorCount: number }>;
  total: number;
  search: OccurrenceSearch;
}

export interface LookupResponse {
  kind: 'trace' | 'span';
  traceId: string;
  spanId: string | null;
  occurrenceId: string | null;
}

export interface TraceSpan extends Occurrence {
  depth: number;
  offsetMs: number;
  parentMissing: boolean;
}

export interface TraceResponse {
  traceId: string;
  startedAt: string;
  durationMs: number;
  services: string[];
  spanCount: number;
  truncated: boolean;
  spans: TraceSpan[];
}

export interface DatabaseStatement {
  system: string;
  statement: string;
  operation: string | null;
  count: number;
  errorCount: number;
  totalMs: number;
  p50Ms: number | null;
  p95Ms: number | null;
}

export interface DatabaseResponse extends RangeEcho {
  statements: DatabaseStatement[];
}

export interface DependencyEdge {
  source: string;
  target: string;
  targetKind: string;
  count: number;
  errorCount: number;
  p50Ms: number | null;
  p95Ms: number | null;
}

export interface DependenciesResponse extends RangeEcho {
  edges: DependencyEdge[];
}

interface UsageFigures {
  occurrences: number;
  errors: number;
  totalDurationMs: number;
  logs: number;
}

export interface UsageTenant extends UsageFigures {
  tenantId: string;
  services: string[];
}

export interface UsageResponse extends RangeEcho {
  tenants: UsageTenant[];
}

export interface UsageTrendBucket extends UsageFigures {
  start: string;
}

export interface UsageTrendResponse extends RangeEcho {
  interval: string;
  buckets: UsageTrendBucket[];
}

export interface IngestionKey {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface KeysResponse {
  items: IngestionKey[];
}

export interface CreatedKey {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  key: string;
}

export interface ManagedUser extends SessionUser {
  active: boolean;
  createdAt: string;
}

export interface UsersResponse {
  items: ManagedUser[];
}

export interface Invitation {
  id: string;
  email: string;
  role: Role;
  status: 'pending' | 'accepted' | 'revoked' | 'expired';
  expiresAt: string;
  createdAt: string;
}

export interface InvitationsResponse {
  items: Invitation[];
}

export interface CreatedInvitation {
  id: string;
  email: string;
  role: Role;
  expiresAt: string;
  token: string;
}

export interface RetentionResponse {
  days: number;
}

export interface HealthResponse {
  checkedAt: string;
  ingestion: { lastReceivedAt: string | null; itemsPerMinute: number; acceptedLast24h: number; refusedLast24h: number } | null;
  storage: {
    sizeBytes: number;
    rows: { occurrences: number; operationRollups: number; tenantRollups: number; statementRollups: number; dependencyRollups: number };
  } | null;
  retention: { days: number; oldestOccurrenceAt: string | null } | null;
  database: { dialect: 'sqlite' | 'postgres'; status: 'ok' | 'unreachable'; latencyMs: number | null; message: string | null };
}

export type SeverityName = 'unspecified' | 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

export interface LogRecord {
  id: string;
  time: string;
  timeUnixNano: string;
  observedAt: string;
  severityNumber: number;
  severity: SeverityName;
  severityText: string | null;
  body: unknown;
  eventName: string | null;
  service: string;
  environment: string;
  serviceVersion: string | null;
  instance: string | null;
  scope: { name: string | null; version: string | null } | null;
  traceId: string | null;
  spanId: string | null;
  traceFlags: number;
  tenantId: string | null;
  attributes: Record<string, AttributeValue> | null;
  resourceAttributes: Record<string, AttributeValue> | null;
  receivedAt: string;
}

export interface LogsResponse {
  items: LogRecord[];
  limit: number;
  nextCursor: string | null;
}

export interface LogTrendBucket {
  start: string;
  total: number;
  counts: Record<SeverityName, number>;
}

export interface LogTrendResponse extends RangeEcho {
  interval: string;
  buckets: LogTrendBucket[];
}

export interface TraceLogsResponse {
  traceId: string;
  items: LogRecord[];
  truncated: boolean;
}

/** An error group's status: `regressed` is a resolved group seen again. */
export type ErrorGroupStatus = 'open' | 'regressed' | 'resolved' | 'ignored';

interface ErrorGroupFields {
  groupId: string;
  service: string;
  type: string;
  message: string;
  topFrame: string;
  exampleMessage: string | null;
  status: ErrorGroupStatus;
  statusChangedAt: string | null;
  firstSeen: string;
  lastSeen: string;
  count: number;
  countInRange: number;
  tenantsAffected: number;
  exampleTrace: { traceId: string; spanId: string };
}

export interface ErrorGroupListItem extends ErrorGroupFields {
  trend: number[];
}

export interface ErrorGroupsResponse {
  range: RangeEcho;
  trend: { start: string; intervalMs: number; buckets: number };
  items: ErrorGroupListItem[];
  limit: number;
  nextCursor: string | null;
}

export interface ErrorGroupDetail extends ErrorGroupFields {
  range: RangeEcho;
  trend: Array<{ start: string; count: number }>;
  trendIntervalMs: number;
  environments: Array<{ environment: string; count: number }>;
  tenants: Array<{ tenantId: string; count: number; lastSeen: string }>;
  recentOccurrences: Occurrence[];
}

/**
 * Names for the service's answers the dashboard reads, all derived from the types generated from
 * the observability service's OpenAPI document (`generated/observability-api.ts`), so they follow
 * the service's schemas; a test fails when the generated file and the document disagree.
 */
import type { components, paths } from './generated/observability-api.js';

/** The body of a path's answer with a status (never when the document has no such answer). */
type Answer<Path extends keyof paths, Method extends keyof paths[Path], Status extends 200 | 201> = paths[Path][Method] extends {
  responses: { [status in Status]: infer Body };
}
  ? Body
  : never;
type Ok<Path extends keyof paths, Method extends keyof paths[Path]> = Answer<Path, Method, 200>;
type Created<Path extends keyof paths, Method extends keyof paths[Path]> = Answer<Path, Method, 201>;

export type SessionResponse = Ok<'/api/v1/auth/session', 'get'>;
export type SessionUser = SessionResponse['user'];
export type Role = SessionUser['role'];

export type ServicesResponse = Ok<'/api/v1/services', 'get'>;
export type ServiceRow = ServicesResponse['services'][number];
export type ServiceSettings = Ok<'/api/v1/services/{service}/settings', 'get'>;
export type SummaryResponse = Ok<'/api/v1/summary', 'get'>;
export type TrendResponse = Ok<'/api/v1/trend', 'get'>;
export type OperationsResponse = Ok<'/api/v1/operations', 'get'>;
export type OperationRow = OperationsResponse['operations'][number];

export type Occurrence = components['schemas']['Occurrence'];
export type AttributeValue = NonNullable<Occurrence['attributes']>[string];
export type OccurrencesResponse = Ok<'/api/v1/occurrences', 'get'>;
export type OccurrenceDurationsResponse = Ok<'/api/v1/occurrences/durations', 'get'>;
export type LookupResponse = Ok<'/api/v1/lookup/{id}', 'get'>;
export type TraceResponse = Ok<'/api/v1/traces/{traceId}', 'get'>;
export type TraceSpan = TraceResponse['spans'][number];

export type DatabaseResponse = Ok<'/api/v1/database', 'get'>;
export type DependenciesResponse = Ok<'/api/v1/dependencies', 'get'>;
export type DependencyEdge = DependenciesResponse['edges'][number];
export type UsageResponse = Ok<'/api/v1/usage', 'get'>;
export type UsageTrendResponse = Ok<'/api/v1/usage/trend', 'get'>;
export type HealthResponse = Ok<'/api/v1/health', 'get'>;

export type KeysResponse = Ok<'/api/v1/admin/keys', 'get'>;
export type CreatedKey = Created<'/api/v1/admin/keys', 'post'>;
export type UsersResponse = Ok<'/api/v1/admin/users', 'get'>;
export type InvitationsResponse = Ok<'/api/v1/admin/invitations', 'get'>;
export type CreatedInvitation = Created<'/api/v1/admin/invitations', 'post'>;
export type RetentionResponse = Ok<'/api/v1/admin/retention', 'get'>;

export type LogRecord = components['schemas']['LogRecord'];
export type SeverityName = LogRecord['severity'];
export type LogsResponse = Ok<'/api/v1/logs', 'get'>;
export type LogTrendResponse = Ok<'/api/v1/logs/trend', 'get'>;
export type TraceLogsResponse = Ok<'/api/v1/traces/{traceId}/logs', 'get'>;

export type ErrorGroupListItem = components['schemas']['ErrorGroupListItem'];
/** An error group's status: `regressed` is a resolved group seen again. */
export type ErrorGroupStatus = ErrorGroupListItem['status'];
export type ErrorGroupsResponse = Ok<'/api/v1/errors', 'get'>;
export type ErrorGroupDetail = Ok<'/api/v1/errors/{groupId}', 'get'>;

export type AlertRulesResponse = Ok<'/api/v1/alerts/rules', 'get'>;
export type AlertRuleView = AlertRulesResponse['items'][number];
export type AlertRuleSpec = Omit<AlertRuleView['rule'], 'windowMinutes' | 'forMinutes' | 'channels'> & { windowMinutes?: number; forMinutes?: number; channels?: string[] };
export type AlertSeries = Ok<'/api/v1/alerts/rules/{id}/series', 'get'>;
export type AlertEventsResponse = Ok<'/api/v1/alerts/events', 'get'>;
export type AlertEvent = AlertEventsResponse['items'][number];
export type AlertChannelsResponse = Ok<'/api/v1/alerts/channels', 'get'>;
export type AlertChannel = AlertChannelsResponse['items'][number];
export type CreatedAlertChannel = Created<'/api/v1/alerts/channels', 'post'>;
export type AlertDelivery = Ok<'/api/v1/alerts/channels/{id}/test', 'post'>;

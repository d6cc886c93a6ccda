import { expect, expectTypeOf, it } from 'vitest';
import { committedApiTypes, expectedApiTypes } from '../../../scripts/api-types-generator.js';
import { dashboardApiTypes } from '../scripts/api-types-target.js';
import type * as Api from '../src/api/api-types.js';

it('has generated API types that match the observability service OpenAPI document (run `npm run generate:api-types -w @playstack/observability-web`)', () => {
  expect(committedApiTypes(dashboardApiTypes)).toBe(expectedApiTypes(dashboardApiTypes));
});

it('names a real shape for every answer the dashboard reads (a path or status renamed in the service makes one `never`)', () => {
  // Checked by the type checker that `npm test` runs first; an `Ok<...>` of a path, method or
  // status the document no longer has would otherwise let every use of it through as `never`.
  expectTypeOf<Api.SessionResponse>().not.toBeNever();
  expectTypeOf<Api.Role>().toEqualTypeOf<'admin' | 'member'>();
  expectTypeOf<Api.ServicesResponse>().not.toBeNever();
  expectTypeOf<Api.ServiceSettings>().not.toBeNever();
  expectTypeOf<Api.SummaryResponse>().not.toBeNever();
  expectTypeOf<Api.TrendResponse>().not.toBeNever();
  expectTypeOf<Api.OperationsResponse>().not.toBeNever();
  expectTypeOf<Api.AttributeValue>().toEqualTypeOf<string | number | boolean>();
  expectTypeOf<Api.OccurrencesResponse>().not.toBeNever();
  expectTypeOf<Api.OccurrenceDurationsResponse>().not.toBeNever();
  expectTypeOf<Api.LookupResponse>().not.toBeNever();
  expectTypeOf<Api.TraceResponse>().not.toBeNever();
  expectTypeOf<Api.DatabaseResponse>().not.toBeNever();
  expectTypeOf<Api.DependenciesResponse>().not.toBeNever();
  expectTypeOf<Api.UsageResponse>().not.toBeNever();
  expectTypeOf<Api.UsageTrendResponse>().not.toBeNever();
  expectTypeOf<Api.HealthResponse>().not.toBeNever();
  expectTypeOf<Api.KeysResponse>().not.toBeNever();
  expectTypeOf<Api.CreatedKey>().not.toBeNever();
  expectTypeOf<Api.UsersResponse>().not.toBeNever();
  expectTypeOf<Api.InvitationsResponse>().not.toBeNever();
  expectTypeOf<Api.CreatedInvitation>().not.toBeNever();
  expectTypeOf<Api.RetentionResponse>().not.toBeNever();
  expectTypeOf<Api.SeverityName>().toEqualTypeOf<'unspecified' | 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal'>();
  expectTypeOf<Api.LogsResponse>().not.toBeNever();
  expectTypeOf<Api.LogTrendResponse>().not.toBeNever();
  expectTypeOf<Api.TraceLogsResponse>().not.toBeNever();
  expectTypeOf<Api.ErrorGroupStatus>().toEqualTypeOf<'open' | 'regressed' | 'resolved' | 'ignored'>();
  expectTypeOf<Api.ErrorGroupsResponse>().not.toBeNever();
  expectTypeOf<Api.ErrorGroupDetail>().not.toBeNever();
});

import type { ErrorGroupDetail, ErrorGroupQuery, ErrorGroupsQuery, ErrorGroupsResponse, ErrorGroupStatusResponse, ErrorGroupStatusUpdate } from './error-schemas.js';

/**
 * What the errors feature reads and changes of the stored error groups: the telemetry store
 * (telemetry/telemetry-store.ts) provides it, whichever backend holds the groups, and the error
 * routes see only this.
 */
export interface ErrorGroups {
  errorGroups(nowMs: number, query: ErrorGroupsQuery): Promise<ErrorGroupsResponse>;
  errorGroup(nowMs: number, groupId: string, query: ErrorGroupQuery): Promise<ErrorGroupDetail>;
  setErrorGroupStatus(groupId: string, status: ErrorGroupStatusUpdate['status'], userId: string, nowMs: number): Promise<ErrorGroupStatusResponse>;
}

import type { ExportBatches, ExportRequest } from '../storage/telemetry-export.js';
import type { ErrorGroupDetail, ErrorGroupQuery, ErrorGroupsQuery, ErrorGroupsResponse, ErrorGroupStatusResponse, ErrorGroupStatusUpdate } from './error-schemas.js';

/** A status a user gave a group, when and by whom: what the copy command carries to another store. */
export interface ErrorGroupStatusChange {
  groupId: string;
  status: ErrorGroupStatusUpdate['status'];
  changedAt: number;
  /** The user's id (in the service database, which the copy leaves where it is); null when unknown. */
  changedBy: string | null;
}

/**
 * What the errors feature reads and changes of the stored error groups: the telemetry store
 * (telemetry/telemetry-store.ts) provides it, whichever backend holds the groups, and the error
 * routes see only this.
 */
export interface ErrorGroups {
  errorGroups(nowMs: number, query: ErrorGroupsQuery): Promise<ErrorGroupsResponse>;
  errorGroup(nowMs: number, groupId: string, query: ErrorGroupQuery): Promise<ErrorGroupDetail>;
  setErrorGroupStatus(groupId: string, status: ErrorGroupStatusUpdate['status'], userId: string, nowMs: number): Promise<ErrorGroupStatusResponse>;
  /** Every status change users made, in (time, group) order, in bounded batches; a position names all changes of one group in one millisecond. */
  exportErrorGroupStatusChanges(request: Pick<ExportRequest, 'after' | 'batchRows'>): ExportBatches<ErrorGroupStatusChange>;
}

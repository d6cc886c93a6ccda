import type { Kysely } from 'kysely';
import type { TelemetryDatabase } from '../storage/storage-tables.js';
import { storedErrorGroup } from './error-groups-view.js';
import type { ErrorGroupStatusResponse, ErrorGroupStatusUpdate } from './error-schemas.js';

/**
 * Sets a group's status as a user chose it. Resolving records the moment: an occurrence that
 * starts later marks the group regressed (src/errors/error-group-merge.ts).
 */
export async function setErrorGroupStatus(
  db: Kysely<TelemetryDatabase>,
  groupId: string,
  status: ErrorGroupStatusUpdate['status'],
  userId: string,
  nowMs: number,
): Promise<ErrorGroupStatusResponse> {
  await storedErrorGroup(db, groupId);
  await db
    .updateTable('error_groups')
    .set({ status, status_changed_at: nowMs, status_changed_by: userId, ...(status === 'resolved' ? { resolved_at: nowMs } : {}) })
    .where('group_id', '=', groupId)
    .execute();
  return { groupId, status, statusChangedAt: new Date(nowMs).toISOString() };
}

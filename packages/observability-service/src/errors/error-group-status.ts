import type { Kysely } from 'kysely';
import type { ErrorGroupDatabase } from './error-group-tables.js';
import { storedErrorGroup } from './error-groups-view.js';
import type { ErrorGroupStatusResponse, ErrorGroupStatusUpdate } from './error-schemas.js';

/**
 * Sets a group's status as a user chose it, and keeps the change in the group's status history.
 * Resolving records the moment: an occurrence that starts later marks the group regressed
 * (src/errors/error-group-merge.ts).
 */
export async function setErrorGroupStatus(
  db: Kysely<ErrorGroupDatabase>,
  groupId: string,
  status: ErrorGroupStatusUpdate['status'],
  userId: string,
  nowMs: number,
): Promise<ErrorGroupStatusResponse> {
  await storedErrorGroup(db, groupId);
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('error_groups')
      .set({ status, status_changed_at: nowMs, status_changed_by: userId, ...(status === 'resolved' ? { resolved_at: nowMs } : {}) })
      .where('group_id', '=', groupId)
      .execute();
    await trx.insertInto('error_group_status_changes').values({ group_id: groupId, changed_at: nowMs, status, changed_by: userId }).execute();
  });
  return { groupId, status, statusChangedAt: new Date(nowMs).toISOString() };
}

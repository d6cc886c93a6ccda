import { sql, type Kysely } from 'kysely';
import { splitPosition, type ExportBatches, type ExportRequest } from '../storage/telemetry-export.js';
import type { ErrorGroupDatabase } from './error-group-tables.js';
import type { ErrorGroupStatusChange } from './error-groups.js';
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

interface StatusChangeRow {
  group_id: string;
  changed_at: number;
  status: ErrorGroupStatusChange['status'];
  changed_by: string | null;
}

/**
 * Every change in the status history, and each group's own latest change where the history lacks
 * it (a status set before the history was kept: its migration copied resolutions only); a
 * regressed group's is its resolution.
 */
const allStatusChanges = sql<StatusChangeRow>`
  select group_id, changed_at, status, changed_by from error_group_status_changes
  union all
  select g.group_id, g.status_changed_at, case when g.status = 'regressed' then 'resolved' else g.status end, g.status_changed_by
  from error_groups g
  where g.status_changed_at is not null
    and not exists (select 1 from error_group_status_changes c where c.group_id = g.group_id and c.changed_at = g.status_changed_at)`;

/**
 * The status changes users made, in (time, group) order, `batchRows` at a time (a page that ends
 * inside one group's millisecond takes the rest of it, so a position names whole keys).
 */
export async function* exportErrorGroupStatusChanges(db: Kysely<ErrorGroupDatabase>, request: Pick<ExportRequest, 'after' | 'batchRows'>): ExportBatches<ErrorGroupStatusChange> {
  let after = request.after === undefined ? undefined : splitPosition(request.after);
  for (;;) {
    const where = after ? sql`changed_at > ${after.time} or (changed_at = ${after.time} and group_id > ${after.key})` : sql`1 = 1`;
    const page = (await sql<StatusChangeRow>`select * from (${allStatusChanges}) s where ${where} order by changed_at, group_id limit ${request.batchRows}`.execute(db)).rows;
    if (page.length === 0) return;
    const last = page[page.length - 1]!;
    const lastKey = (row: StatusChangeRow) => Number(row.changed_at) === Number(last.changed_at) && row.group_id === last.group_id;
    const rows =
      page.length < request.batchRows
        ? page
        : [
            ...page.filter((row) => !lastKey(row)),
            ...(await sql<StatusChangeRow>`select * from (${allStatusChanges}) s where changed_at = ${last.changed_at} and group_id = ${last.group_id}`.execute(db)).rows,
          ];
    yield rows.map((row) => ({
      row: { groupId: row.group_id, status: row.status, changedAt: Number(row.changed_at), changedBy: row.changed_by },
      position: `${Number(row.changed_at)}:${row.group_id}`,
    }));
    if (page.length < request.batchRows) return;
    after = { time: Number(last.changed_at), key: last.group_id };
  }
}

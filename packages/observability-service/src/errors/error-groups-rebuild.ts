import { setOccurrenceColumn, type RebuildPart } from '../storage/rollup-rebuild.js';
import { telemetryTables } from '../storage/telemetry-database.js';
import { errorGroupTables, type ErrorGroupDatabase } from './error-group-tables.js';
import { ErrorGroupAccumulator, errorGroupOf } from './error-group-merge.js';

/**
 * The error groups recomputed from the stored occurrences with the current fingerprint rules,
 * and each occurrence's `error_group_id` brought in line with them. Groups start afresh: open,
 * without the statuses users gave the old groups (their ids may no longer exist).
 */
export const errorGroupsRebuild: RebuildPart<ErrorGroupDatabase> = {
  name: 'error-groups',
  feedsTiers: false,
  async clear(trx) {
    const db = errorGroupTables(trx);
    await db.deleteFrom('error_group_hours').execute();
    await db.deleteFrom('error_group_days').execute();
    await db.deleteFrom('error_group_tenants').execute();
    await db.deleteFrom('error_group_status_changes').execute();
    await db.deleteFrom('error_groups').execute();
  },
  async addChunk(trx, rows) {
    const groups = new ErrorGroupAccumulator();
    const regrouped = new Map<string | null, number[]>();
    for (const stored of rows) {
      const row = { ...stored, started_at: Number(stored.started_at) };
      const group = errorGroupOf(row);
      if (group) groups.add(row, group);
      const groupId = group?.groupId ?? null;
      if (groupId !== row.error_group_id) {
        const ids = regrouped.get(groupId) ?? [];
        ids.push(Number(row.id));
        regrouped.set(groupId, ids);
      }
    }
    await groups.mergeInto(errorGroupTables(trx));
    await setOccurrenceColumn(telemetryTables(trx), 'error_group_id', regrouped);
  },
};

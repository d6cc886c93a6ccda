import type { Kysely } from 'kysely';
import type { IngestionTables } from '../storage/storage-tables.js';
import { hourMs } from './error-group-merge.js';

/**
 * Forgets what retention removed: hours that ended before the cutoff, and groups (with their
 * tenants) last seen before it. Bounded by the number of groups, not by traffic.
 */
export async function pruneErrorGroups(db: Kysely<IngestionTables>, cutoff: number): Promise<number> {
  const hours = await db.deleteFrom('error_group_hours').where('hour', '<=', cutoff - hourMs).executeTakeFirst();
  const gone = db.selectFrom('error_groups').select('group_id').where('last_seen', '<', cutoff);
  await db.deleteFrom('error_group_tenants').where('group_id', 'in', gone).execute();
  const groups = await db.deleteFrom('error_groups').where('last_seen', '<', cutoff).executeTakeFirst();
  return Number(hours.numDeletedRows) + Number(groups.numDeletedRows);
}

import { sql, type Kysely } from 'kysely';
import type { Database } from '@playstack/server-kit';
import type { ErrorGroupDatabase } from './error-group-tables.js';
import { rollupLock } from '../storage/occurrence-rollups.js';
import { dayMs } from '../time-units.js';
import { dayOf, hourMs } from './error-group-merge.js';

/**
 * Forgets what retention removed: hours that ended before the cutoff, and groups (with their
 * tenants) last seen before it. Days that ended before it go too; the day the cutoff falls in is
 * summed again from its remaining hours, so a day always equals the sum of its stored hours.
 * Bounded by the number of groups, not by traffic.
 */
export async function pruneErrorGroups(database: Pick<Database<ErrorGroupDatabase>, 'db' | 'dialect'>, cutoff: number): Promise<number> {
  return database.db.transaction().execute(async (db) => {
    // Ingestion adds to the same day under this lock: the re-summed day cannot miss a batch.
    if (database.dialect === 'postgres') await sql`select pg_advisory_xact_lock(${rollupLock})`.execute(db);
    const hours = await db.deleteFrom('error_group_hours').where('hour', '<=', cutoff - hourMs).executeTakeFirst();
    const cutoffDay = dayOf(cutoff);
    const days = await db.deleteFrom('error_group_days').where('day', '<=', cutoffDay).executeTakeFirst();
    await resumDay(db, cutoffDay);
    const gone = db.selectFrom('error_groups').select('group_id').where('last_seen', '<', cutoff);
    await db.deleteFrom('error_group_tenants').where('group_id', 'in', gone).execute();
    await db.deleteFrom('error_group_status_changes').where('group_id', 'in', gone).execute();
    const groups = await db.deleteFrom('error_groups').where('last_seen', '<', cutoff).executeTakeFirst();
    return Number(hours.numDeletedRows) + Number(days.numDeletedRows) + Number(groups.numDeletedRows);
  });
}

/** The day starting at `day` summed from its stored hours (after its row was deleted). */
async function resumDay(db: Kysely<ErrorGroupDatabase>, day: number): Promise<void> {
  await db
    .insertInto('error_group_days')
    .columns(['group_id', 'environment', 'day', 'count'])
    .expression((eb) =>
      eb
        .selectFrom('error_group_hours')
        .select((h) => ['group_id', 'environment', sql.lit(day).as('day'), h.fn.sum<number>('count').as('count')])
        .where('hour', '>=', day)
        .where('hour', '<', day + dayMs)
        .groupBy(['group_id', 'environment']),
    )
    .execute();
}

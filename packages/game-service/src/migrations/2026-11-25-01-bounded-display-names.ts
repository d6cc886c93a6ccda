import { sql } from 'kysely';
import type { ServiceMigration } from '@playstack/server-kit';
import { boundedDisplayName, maxDisplayNameCodePoints } from '../auth/providers/display-name.js';

/**
 * Display names stored before providers' names were bounded (SQLite kept names of any length,
 * which made every access token of the player too large to send): bounded like new ones.
 */
export const boundedDisplayNamesMigration: ServiceMigration = {
  async up(db) {
    const long = await db
      .selectFrom('players')
      .select(['id', 'display_name'])
      .where(sql`length(display_name)`, '>', maxDisplayNameCodePoints)
      .execute();
    for (const row of long as Array<{ id: string; display_name: string }>) {
      await db.updateTable('players').set({ display_name: boundedDisplayName(row.display_name) }).where('id', '=', row.id).execute();
    }
  },
};

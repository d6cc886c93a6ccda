import { sql } from 'kysely';
import type { ServiceMigration } from '@playstack/server-kit';
import { boundedDisplayName, maxDisplayNameCodePoints } from '../auth/providers/display-name.js';

/**
 * Display names stored before providers' names were bounded (SQLite kept names of any length,
 * which made every access token of the player too large to send), in players and in the copies
 * leaderboard entries keep: bounded like new ones.
 */
export const boundedDisplayNamesMigration: ServiceMigration = {
  async up(db) {
    for (const table of ['players', 'leaderboard_entries']) {
      const names = await db
        .selectFrom(table)
        .select('display_name')
        .distinct()
        .where(sql`length(display_name)`, '>', maxDisplayNameCodePoints)
        .execute();
      for (const { display_name: name } of names as Array<{ display_name: string }>) {
        await db.updateTable(table).set({ display_name: boundedDisplayName(name) }).where('display_name', '=', name).execute();
      }
    }
  },
};

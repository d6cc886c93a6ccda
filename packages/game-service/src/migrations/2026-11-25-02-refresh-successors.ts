import type { ServiceMigration } from '@playstack/server-kit';

/**
 * A spent refresh token keeps its successor, sealed with a key derived from the spent token
 * (auth/refresh-successor.ts), so refreshes racing within the grace window get the same
 * successor. `session_families.grace_used` is no longer read or updated; it goes in a later
 * release, once no instance of the previous one writes it.
 */
export const refreshSuccessorsMigration: ServiceMigration = {
  async up(db) {
    await db.schema.alterTable('refresh_tokens').addColumn('successor_sealed', 'text').execute();
  },
};

import type { ServiceMigration } from '@playstack/server-kit';

/** Each stored manifest version says what it changed (JSON array of lines), for the history. */
export const manifestChangesMigration: ServiceMigration = {
  async up(db) {
    await db.schema.alterTable('manifest_versions').addColumn('changes', 'text').execute();
  },
};

import type { Kysely } from 'kysely';
import type { ServiceMigration } from '@playstack/server-kit';

/**
 * Occurrences of one service, newest first, whatever the environment: the existing indexes put
 * the environment or the operation between the service and the start time, so a list (and an
 * occurrence search's window) filtered by service alone read every row the service ever sent.
 */
export const serviceStartedAtIndex: ServiceMigration = {
  async up(db: Kysely<any>) {
    await db.schema.createIndex('occurrences_service_only_started_at').on('occurrences').columns(['service', 'started_at']).execute();
  },
};

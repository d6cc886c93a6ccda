import type { Kysely } from 'kysely';
import type { ServiceMigration } from '@playstack/server-kit';

/**
 * Finding a span by its id alone (the dashboard's "find a trace" box takes span ids too): the
 * trace index leads with the trace id, so span ids get their own.
 */
export const spanIdIndex: ServiceMigration = {
  async up(db: Kysely<any>) {
    await db.schema.createIndex('occurrences_span').on('occurrences').columns(['span_id']).execute();
  },
};

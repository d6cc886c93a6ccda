import type { Kysely } from 'kysely';
import type { ServiceMigration } from '@playstack/server-kit';

/**
 * What OTLP spans carry beyond protocol v1's fields: the resource's other attributes, span events
 * and span links, each as JSON text (null for protocol v1 occurrences). Read with the occurrence
 * (trace view, occurrence page); never filtered or aggregated by SQL, so no index.
 */
export const spanEventsLinks: ServiceMigration = {
  async up(db: Kysely<any>) {
    for (const column of ['resource_attributes', 'events', 'links']) {
      await db.schema.alterTable('occurrences').addColumn(column, 'text').execute();
    }
  },
};

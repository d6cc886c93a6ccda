import type { ServiceMigration } from '@playstack/server-kit';

/**
 * The observability service's migrations, applied in name order. Names are `YYYY-MM-DD-NN-what`;
 * a released migration is frozen: fix forward with a new one.
 */
export const observabilityMigrations: Readonly<Record<string, ServiceMigration>> = {};

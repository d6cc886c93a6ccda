import type { ServiceMigration } from '@playstack/server-kit';

/**
 * The game service's migrations, applied in name order. Names are `YYYY-MM-DD-NN-what`;
 * a released migration is frozen: fix forward with a new one.
 */
export const gameMigrations: Readonly<Record<string, ServiceMigration>> = {};

import fp from 'fastify-plugin';
import type { ObservabilityApp } from '../database.js';
import { logTables } from './log-tables.js';
import type { LogStore } from './log-store.js';
import { SqlLogStore } from './sql-log-store.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Where log records are written, searched and pruned. */
    logStore: LogStore;
  }
}

/** Decorates `app.logStore`: the SQL store over the service's database. */
export const logStorePlugin = fp(
  async (app: ObservabilityApp) => {
    const { db, dialect } = app.database;
    app.decorate<LogStore>('logStore', new SqlLogStore({ db: logTables(db), dialect }));
  },
  { name: 'log-store' },
);

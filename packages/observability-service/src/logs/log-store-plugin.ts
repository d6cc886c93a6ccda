import fp from 'fastify-plugin';
import type { App } from '@playstack/server-kit';
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
  async (fastify) => {
    const app = fastify as unknown as App;
    app.decorate('logStore', new SqlLogStore(app.database) as LogStore);
  },
  { name: 'log-store' },
);

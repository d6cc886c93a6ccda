import { afterAll, beforeAll } from 'vitest';
import type { App } from '@playstack/server-kit';
import type { TestDatabase } from '@playstack/server-kit/testing';
import type { BuildOptions } from '../../src/app.js';
import { setUpFirstAdmin, type BrowserSession } from './browser-session.js';
import { buildTestApp } from './test-app.js';

/** The service listening on a local port for a suite, with its first admin signed in to read back. */
export interface ListeningService {
  app: App;
  baseUrl: string;
  session: BrowserSession;
}

/**
 * Before the suite's tests: builds the service on the database with `env` (or what `env()` resolves
 * to, for values known only then, like a free port), listens on a local port and sets up the first
 * admin; closes it after them. The returned object is filled in by the time the tests run.
 */
export function useListeningService<T extends ListeningService = ListeningService>(
  database: () => TestDatabase,
  env: Record<string, string> | ((service: T) => Promise<Record<string, string>>),
  options: BuildOptions = {},
): T {
  const service = {} as T;
  beforeAll(async () => {
    service.app = await buildTestApp(database(), typeof env === 'function' ? await env(service) : env, options);
    service.baseUrl = await service.app.listen({ port: 0, host: '127.0.0.1' });
    service.session = await setUpFirstAdmin(service.app);
  });
  afterAll(async () => {
    await service.app.close();
  });
  return service;
}

import type { App } from '@playstack/server-kit';
import type { TestDatabase } from '@playstack/server-kit/testing';
import { buildApp, type BuildOptions } from '../../src/app.js';
import { loadObservabilityConfig } from '../../src/config.js';

/** Builds the observability service against a test database, with extra environment variables. */
export async function buildTestApp(
  database: TestDatabase,
  env: Record<string, string> = {},
  options: BuildOptions = {},
): Promise<App> {
  const config = loadObservabilityConfig({ LOG_LEVEL: 'silent', ...database.env, ...env });
  return buildApp(config, options);
}

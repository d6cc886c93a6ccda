import type { App } from '@playstack/server-kit';
import type { TestDatabase } from '@playstack/server-kit/testing';
import { buildApp, type BuildOptions } from '../../src/app.js';
import { loadObservabilityConfig } from '../../src/config.js';

/**
 * Builds the observability service against a test database, with extra environment variables.
 * OTLP/gRPC is off unless `env` gives it a port (test files run in parallel: use `freePort()`).
 */
export async function buildTestApp(
  database: TestDatabase,
  env: Record<string, string> = {},
  options: BuildOptions = {},
): Promise<App> {
  const config = loadObservabilityConfig({ LOG_LEVEL: 'silent', OTLP_GRPC_PORT: '0', ...database.env, ...env });
  return buildApp(config, options);
}

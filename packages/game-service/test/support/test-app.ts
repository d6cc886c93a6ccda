import type { App } from '@playstack/server-kit';
import type { TestDatabase } from '@playstack/server-kit/testing';
import { buildApp, type BuildOptions } from '../../src/app.js';
import { loadGameConfig } from '../../src/config.js';

/** Builds the game service against a test database, with extra environment variables. */
export async function buildTestApp(
  database: TestDatabase,
  env: Record<string, string> = {},
  options: BuildOptions = {},
): Promise<App> {
  const config = loadGameConfig({ LOG_LEVEL: 'silent', GAME_DEV_AUTH: '1', ...database.env, ...env });
  return buildApp(config, options);
}

import { createServiceApp, currentCommit, packageInfo, type App, type Clock } from '@playstack/server-kit';
import type { GameConfig } from './config.js';
import { gameMigrations } from './migrations/index.js';

export const apiVersion = '0.1.0';

export interface BuildOptions {
  /** Time source; tests inject a manual clock. */
  clock?: Clock;
}

/** Builds the game service: platform first, then the features. Tests use it without a socket. */
export async function buildApp(config: Readonly<GameConfig>, options: BuildOptions = {}): Promise<App> {
  const { name, version } = packageInfo(new URL('../package.json', import.meta.url));
  const app = await createServiceApp({
    config,
    version: { name, version, commit: currentCommit(), apiVersion },
    metricsPrefix: 'game',
    sqliteFile: 'game.sqlite',
    migrations: gameMigrations,
    migrationTablePrefix: 'game',
    bodyLimitBytes: config.GAME_BODY_LIMIT_BYTES,
    clock: options.clock,
    openapi: {
      info: {
        title: 'Game results and leaderboards service',
        version: apiVersion,
        description: 'Player sessions, authoritative run results and leaderboards for many games.',
      },
      tags: [
        { name: 'system', description: 'Health, readiness, version, metrics' },
        { name: 'auth', description: 'Player sessions' },
        { name: 'runs', description: 'Run submission' },
        { name: 'leaderboards', description: 'Leaderboards' },
        { name: 'players', description: 'Player data' },
      ],
      securitySchemes: { playerToken: { type: 'http', scheme: 'bearer', description: 'access token from /auth/exchange' } },
    },
  });

  // Features, each a plugin from its own folder. Game paths live under /v1/games/:gameId.
  // (Feature registrations are added here as the features land.)

  return app;
}

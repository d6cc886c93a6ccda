import { createServiceApp, currentCommit, packageInfo, type App, type Clock, type VersionInfo } from '@playstack/server-kit';
import type { GameApp } from './database.js';
import { adminRoutes } from './admin/admin-routes.js';
import { authPlugin } from './auth/auth-plugin.js';
import { authRoutes } from './auth/auth-routes.js';
import type { GameConfig } from './config.js';
import { allowCrossOriginGames, parseOrigins } from './games/cross-origin.js';
import { gameScope, type GameFeature } from './games/game-scope.js';
import { manifestPlugin } from './manifest/manifest-plugin.js';
import { leaderboardRoutes } from './leaderboards/leaderboard-routes.js';
import { leaderboardsPlugin } from './leaderboards/leaderboards-plugin.js';
import { gameMigrations } from './migrations/index.js';
import { moderationPlugin } from './moderation/moderation-plugin.js';
import { playerErasurePlugin } from './players/player-erasure-plugin.js';
import { playerRoutes } from './players/player-routes.js';
import { rateLimitsPlugin } from './rate-limit/rate-limits.js';
import { runRoutes } from './runs/run-routes.js';
import { runsPlugin } from './runs/runs-plugin.js';
import { adapterTypes } from './runs/adapters/registry.js';

export const apiVersion = '0.1.0';

export interface BuildOptions {
  /** Time source; tests inject a manual clock. */
  clock?: Clock;
  /** Where secrets the manifest names by variable (client secrets) are read; default process.env. */
  secrets?: Readonly<Record<string, string | undefined>>;
  /** Where log lines go instead of stdout (tests read them). */
  logStream?: { write(line: string): void };
}

/** Builds the game service: platform first, then the features. Tests use it without a socket. */
export async function buildApp(config: Readonly<GameConfig>, options: BuildOptions = {}): Promise<GameApp> {
  const { name, version } = packageInfo(new URL('../package.json', import.meta.url));
  const versionInfo = { name, version, commit: currentCommit(), apiVersion };
  return createServiceApp({
    config,
    version: versionInfo,
    metricsPrefix: 'game',
    sqliteFile: 'game.sqlite',
    migrations: gameMigrations,
    migrationTablePrefix: 'game',
    bodyLimitBytes: config.GAME_BODY_LIMIT_BYTES,
    clock: options.clock,
    logStream: options.logStream,
    // Its log lines go where its spans go, when the OTEL_* variables say so.
    exportLogs: true,
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
    features: (app) => registerFeatures(app, config, options, versionInfo),
  });
}

async function registerFeatures(app: App, config: Readonly<GameConfig>, options: BuildOptions, versionInfo: VersionInfo): Promise<void> {
  // Features, each a plugin from its own folder. Game paths live under /v1/games/:gameId.
  await app.register(rateLimitsPlugin, {
    auth: { max: config.GAME_AUTH_RATE_LIMIT_MAX, timeWindowMs: config.GAME_AUTH_RATE_LIMIT_WINDOW_MS },
    player: { max: config.GAME_PLAYER_RATE_LIMIT_MAX, timeWindowMs: config.GAME_PLAYER_RATE_LIMIT_WINDOW_MS },
    memoryKeys: config.GAME_RATE_LIMIT_MEMORY_KEYS,
  });
  await app.register(manifestPlugin, {
    adapterTypes,
    manifestFile: config.GAME_MANIFEST_FILE,
    refreshIntervalMs: config.GAME_MANIFEST_REFRESH_MS,
  });
  await app.register(playerErasurePlugin);
  await app.register(authPlugin, {
    tokenSecret: config.GAME_TOKEN_SECRET,
    previousTokenSecrets: config.GAME_TOKEN_PREVIOUS_SECRETS?.split(',') ?? [],
    dataDir: config.DATA_DIR,
    lifetimes: {
      accessTokenTtlMs: config.GAME_ACCESS_TOKEN_TTL_SECONDS * 1000,
      refreshTokenTtlMs: config.GAME_REFRESH_TOKEN_TTL_SECONDS * 1000,
      refreshGraceMs: config.GAME_REFRESH_GRACE_SECONDS * 1000,
    },
    revocationCacheMs: config.GAME_REVOCATION_CACHE_MS,
    providers: {
      devAuth: config.GAME_DEV_AUTH,
      google: {
        tokenUrl: config.GOOGLE_OAUTH_TOKEN_URL,
        gamesApiUrl: config.GOOGLE_GAMES_API_URL,
        timeoutMs: config.GAME_PROVIDER_TIMEOUT_MS,
        secrets: options.secrets ?? process.env,
      },
    },
  });
  await app.register(leaderboardsPlugin);
  await app.register(runsPlugin, {
    rateLimit: { max: config.GAME_RUN_RATE_LIMIT_MAX, timeWindowMs: config.GAME_RUN_RATE_LIMIT_WINDOW_MS },
    maxRunsPerCommit: config.GAME_RUNS_PER_COMMIT_MAX,
    commitLanes: config.GAME_RUN_COMMIT_LANES,
  });
  await app.register(moderationPlugin, { sweepIntervalMs: config.GAME_MODERATION_SWEEP_MS });

  // Route plugins under /v1/games/:gameId, where the game is resolved (400/404) before anything
  // else. Each feature adds its own line here (leaderboardRoutes, runRoutes, ...).
  const gameFeatures: GameFeature[] = [
    authRoutes,
    playerRoutes,
    leaderboardRoutes,
    runRoutes,
  ];
  await app.register(
    async (games) => {
      await allowCrossOriginGames(games, parseOrigins(config.GAME_CORS_ORIGINS));
      await games.register(gameScope, { prefix: '/:gameId', features: gameFeatures });
    },
    { prefix: '/v1/games' },
  );

  await app.register(adminRoutes, {
    prefix: '/admin',
    version: versionInfo,
    invitationTtlMs: config.GAME_ADMIN_INVITATION_TTL_HOURS * 3_600_000,
    sessionPolicy: {
      idleTimeoutMs: config.GAME_ADMIN_SESSION_IDLE_MINUTES * 60_000,
      absoluteLifetimeMs: config.GAME_ADMIN_SESSION_MAX_AGE_HOURS * 3_600_000,
      touchIntervalMs: 60_000,
    },
  });
}

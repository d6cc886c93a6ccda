import { Type, type Static } from '@sinclair/typebox';
import { commonConfigProperties, ConfigError, configSchema, Flag, loadConfig, Port } from '@playstack/server-kit';

/**
 * Every environment variable the game service reads. Descriptions feed the README's reference.
 * Feature variables are grouped by feature below the common ones.
 */
export const gameConfigSchema = configSchema({
  ...commonConfigProperties,
  GAME_PORT: Port(8080, 'port of the game service'),
  GAME_BODY_LIMIT_BYTES: Type.Integer({ minimum: 1024, maximum: 16 * 1024 * 1024, default: 256 * 1024, description: 'request body limit in bytes' }),
  GAME_CORS_ORIGINS: Type.Optional(
    Type.String({ pattern: '^(\\*|https?://[^,\\s]+(\\s*,\\s*https?://[^,\\s]+)*)$', description: 'origins of browser games allowed to call the game API: comma-separated, or *; unset sends no CORS headers' }),
  ),
  GAME_DEV_AUTH: Flag(false, 'true (or 1) to accept dev:<name> codes from the dev provider'),
  // Manifest
  GAME_MANIFEST_FILE: Type.Optional(
    Type.String({ minLength: 1, description: 'JSON manifest stored as a new version at boot when it differs from the newest stored one' }),
  ),
  GAME_MANIFEST_REFRESH_MS: Type.Integer({ minimum: 100, maximum: 3_600_000, default: 5_000, description: 'how often an instance looks for a manifest version another instance stored, in milliseconds' }),
  // Sessions
  NODE_ENV: Type.Optional(Type.String({ description: 'production makes GAME_TOKEN_SECRET required' })),
  GAME_TOKEN_SECRET: Type.Optional(
    Type.String({ minLength: 32, description: 'HMAC key access tokens are signed with (32+ chars); required when NODE_ENV=production; unset: generated once into DATA_DIR/game-token-secret (mode 0600), for one machine' }),
  ),
  GAME_TOKEN_PREVIOUS_SECRETS: Type.Optional(
    Type.String({ pattern: '^[^,]{32,}(,[^,]{32,})*$', description: 'comma-separated former GAME_TOKEN_SECRET values (32+ chars each) that still verify access tokens, never sign them: keep one for an access-token lifetime after a rotation, then remove it' }),
  ),
  GAME_ACCESS_TOKEN_TTL_SECONDS: Type.Integer({ minimum: 10, maximum: 86_400, default: 900, description: 'access token lifetime in seconds' }),
  GAME_REFRESH_TOKEN_TTL_SECONDS: Type.Integer({ minimum: 60, maximum: 31_536_000, default: 2_592_000, description: 'refresh token lifetime in seconds (renewed by every refresh)' }),
  GAME_REFRESH_GRACE_SECONDS: Type.Integer({ minimum: 0, maximum: 300, default: 10, description: 'window after a rotation in which the token it spent may be presented again, getting the same successor (racing refreshes, retries)' }),
  GAME_REVOCATION_CACHE_MS: Type.Integer({ minimum: 0, maximum: 60_000, default: 1_000, description: 'how long a session family the database showed active is trusted before the database is asked again (with or without Redis): the longest an instance may miss a revocation, in milliseconds' }),
  // Platform providers
  GOOGLE_OAUTH_TOKEN_URL: Type.String({ pattern: '^https?://', default: 'https://oauth2.googleapis.com/token', description: "Google's OAuth token endpoint" }),
  GOOGLE_GAMES_API_URL: Type.String({ pattern: '^https?://', default: 'https://games.googleapis.com', description: 'base URL of the Google Play Games API (games/v1/... is appended)' }),
  GAME_PROVIDER_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 60_000, default: 5_000, description: 'timeout of each call to a platform provider, in milliseconds' }),
  // Rate limits
  GAME_AUTH_RATE_LIMIT_MAX: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 30, description: 'calls to /auth/* per client address per window' }),
  GAME_AUTH_RATE_LIMIT_WINDOW_MS: Type.Integer({ minimum: 1_000, maximum: 86_400_000, default: 60_000, description: 'window of the per-address /auth/* limit, in milliseconds' }),
  GAME_PLAYER_RATE_LIMIT_MAX: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 120, description: 'calls to other game endpoints per player per window' }),
  GAME_PLAYER_RATE_LIMIT_WINDOW_MS: Type.Integer({ minimum: 1_000, maximum: 86_400_000, default: 60_000, description: 'window of the per-player limit, in milliseconds' }),
  GAME_RATE_LIMIT_MEMORY_KEYS: Type.Integer({ minimum: 10, maximum: 10_000_000, default: 100_000, description: 'without Redis: how many counters each of the three rate limits keeps in memory (client addresses, players), about 250-300 bytes each; beyond that the least recently seen are forgotten and count from zero again' }),
  // Runs
  GAME_RUN_RATE_LIMIT_MAX: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 60, description: 'run submissions per player per window' }),
  GAME_RUN_RATE_LIMIT_WINDOW_MS: Type.Integer({ minimum: 1_000, maximum: 86_400_000, default: 60_000, description: 'window of the per-player run submission limit, in milliseconds' }),
  GAME_RUNS_PER_COMMIT_MAX: Type.Integer({ minimum: 1, maximum: 10_000, default: 256, description: 'Most run submissions one transaction commits together (group commit)' }),
  GAME_RUN_COMMIT_LANES: Type.Integer({ minimum: 1, maximum: 100, default: 4, description: 'PostgreSQL: group commits of run submissions in flight side by side, each on a pooled connection (keep below DATABASE_POOL_SIZE); SQLite has one' }),
  GAME_MODERATION_SWEEP_MS: Type.Integer({ minimum: 100, maximum: 3_600_000, default: 10_000, description: 'how often hidings of players whose end time has come are ended, in milliseconds' }),
  // Admin pages
  GAME_ADMIN_SESSION_IDLE_MINUTES: Type.Integer({ minimum: 1, maximum: 10_080, default: 60, description: 'an admin session ends after this long without a request' }),
  GAME_ADMIN_SESSION_MAX_AGE_HOURS: Type.Integer({ minimum: 1, maximum: 720, default: 12, description: 'an admin session ends this long after sign-in, however active' }),
  GAME_ADMIN_INVITATION_TTL_HOURS: Type.Integer({ minimum: 1, maximum: 720, default: 72, description: 'lifetime of an administrator invitation token' }),
});

export type GameConfig = Static<typeof gameConfigSchema>;

/** Reads and validates the game service's configuration. */
export function loadGameConfig(env: Record<string, string | undefined> = process.env): Readonly<GameConfig> {
  const config = loadConfig(gameConfigSchema, env);
  // A generated secret belongs to one machine and sits beside the data it protects.
  if (config.NODE_ENV === 'production' && !config.GAME_TOKEN_SECRET) {
    throw new ConfigError('GAME_TOKEN_SECRET: is required when NODE_ENV=production (32+ random characters, the same on every instance), it is not set');
  }
  return config;
}

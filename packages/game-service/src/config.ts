import { Type, type Static } from '@sinclair/typebox';
import { commonConfigProperties, configSchema, Flag, loadConfig, Port } from '@playstack/server-kit';

/**
 * Every environment variable the game service reads. Descriptions feed the README's reference.
 * Feature variables are grouped by feature below the common ones.
 */
export const gameConfigSchema = configSchema({
  ...commonConfigProperties,
  GAME_PORT: Port(8080, 'port of the game service'),
  GAME_BODY_LIMIT_BYTES: Type.Integer({ minimum: 1024, maximum: 16 * 1024 * 1024, default: 256 * 1024, description: 'request body limit in bytes' }),
  GAME_DEV_AUTH: Flag(false, 'true (or 1) to accept dev:<name> codes from the dev provider'),
});

export type GameConfig = Static<typeof gameConfigSchema>;

/** Reads and validates the game service's configuration. */
export function loadGameConfig(env: Record<string, string | undefined> = process.env): Readonly<GameConfig> {
  return loadConfig(gameConfigSchema, env);
}

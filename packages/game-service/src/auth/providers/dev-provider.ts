import { ApiError } from '@playstack/server-kit';
import type { PlatformProvider } from './platform-provider.js';

const devCodePattern = /^dev:([A-Za-z0-9 ._~-]{1,64})$/;

/**
 * For local play and demos: `dev:<name>` signs in as player `<name>` (1 to 64 of letters, digits,
 * space and `._~-`). Refused unless GAME_DEV_AUTH=1, as anyone can claim any name.
 */
export function devProvider(enabled: boolean): PlatformProvider<{ provider: 'dev' }> {
  return {
    id: 'dev',
    async identify(authorizationCode) {
      if (!enabled) throw new ApiError('invalid-grant', 'The dev provider is disabled on this server (GAME_DEV_AUTH is not set).');
      const match = devCodePattern.exec(authorizationCode);
      if (!match) throw new ApiError('invalid-grant', 'A dev authorization code looks like dev:<name>, the name 1 to 64 of A-Z a-z 0-9 space . _ ~ -.');
      return { subject: match[1]!, displayName: match[1]! };
    },
  };
}

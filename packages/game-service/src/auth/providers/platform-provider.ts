import type { AuthSettings } from '../../manifest/manifest-schema.js';

/** Who the platform says the player is. */
export interface PlatformIdentity {
  /** Stable id of the player at the platform (Play Games `playerId`). */
  readonly subject: string;
  readonly displayName: string;
}

/**
 * A platform game-services provider: turns an authorization code into the player's identity.
 * Failures are ApiErrors: `invalid-grant` (the code is refused), `provider-error` (the provider
 * answered wrongly), `provider-unavailable` (unreachable or too slow).
 */
export interface PlatformProvider<Settings extends AuthSettings = AuthSettings> {
  readonly id: Settings['provider'];
  identify(authorizationCode: string, settings: Settings): Promise<PlatformIdentity>;
}

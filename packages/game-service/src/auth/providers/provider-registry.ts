import { ApiError } from '@playstack/server-kit';
import type { AuthSettings } from '../../manifest/manifest-schema.js';
import { devProvider } from './dev-provider.js';
import { boundedDisplayName } from './display-name.js';
import { googlePlayGamesProvider, type GooglePlayGamesOptions } from './google-play-games.js';
import type { PlatformIdentity, PlatformProvider } from './platform-provider.js';
import './provider-error-codes.js';

export interface ProvidersOptions {
  devAuth: boolean;
  google: GooglePlayGamesOptions;
}

/** The longest player id a provider may give (Play Games ids are about 21 digits; the column holds 255). */
const maxSubjectLength = 255;

/** Every provider a manifest may name, by id. */
export class ProviderRegistry {
  readonly #providers: ReadonlyMap<string, PlatformProvider<any>>;

  constructor(options: ProvidersOptions) {
    // The map holds providers of different settings types; `identify` pairs each with its own.
    const providers: Array<PlatformProvider<any>> = [devProvider(options.devAuth), googlePlayGamesProvider(options.google)];
    this.#providers = new Map(providers.map((provider) => [provider.id, provider]));
  }

  /**
   * The identity behind an authorization code, by the game's provider. This is the edge where
   * what a provider says enters: the display name is bounded here, whatever the provider sent, so
   * the stored player, the leaderboards and every access token stay small and safe to show.
   */
  async identify(authorizationCode: string, settings: AuthSettings): Promise<PlatformIdentity> {
    const provider = this.#providers.get(settings.provider);
    if (!provider) throw new ApiError('provider-error', `No provider "${settings.provider}" on this server.`);
    const identity = await provider.identify(authorizationCode, settings);
    if (identity.subject.length > maxSubjectLength) {
      throw new ApiError('provider-error', `The provider named the player with an id longer than ${maxSubjectLength} characters.`);
    }
    return { subject: identity.subject, displayName: boundedDisplayName(identity.displayName) };
  }
}

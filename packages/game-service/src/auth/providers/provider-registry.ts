import { ApiError } from '@playstack/server-kit';
import type { AuthSettings } from '../../manifest/manifest-schema.js';
import { devProvider } from './dev-provider.js';
import { googlePlayGamesProvider, type GooglePlayGamesOptions } from './google-play-games.js';
import type { PlatformIdentity, PlatformProvider } from './platform-provider.js';

export interface ProvidersOptions {
  devAuth: boolean;
  google: GooglePlayGamesOptions;
}

/** Every provider a manifest may name, by id. */
export class ProviderRegistry {
  readonly #providers: ReadonlyMap<string, PlatformProvider<any>>;

  constructor(options: ProvidersOptions) {
    // The map holds providers of different settings types; `identify` pairs each with its own.
    const providers: Array<PlatformProvider<any>> = [devProvider(options.devAuth), googlePlayGamesProvider(options.google)];
    this.#providers = new Map(providers.map((provider) => [provider.id, provider]));
  }

  /** The identity behind an authorization code, by the game's provider. */
  identify(authorizationCode: string, settings: AuthSettings): Promise<PlatformIdentity> {
    const provider = this.#providers.get(settings.provider);
    if (!provider) throw new ApiError('provider-error', `No provider "${settings.provider}" on this server.`);
    return provider.identify(authorizationCode, settings);
  }
}

import type { App } from '@playstack/server-kit';
import type { GameDefinition, Manifest } from '../../src/manifest/manifest-schema.js';
import demoManifest from '../../src/manifest/demo-manifest.json' with { type: 'json' };

/** A game signing in through Google Play Games, application `123456789012`. */
export const galaxyGame: GameDefinition = {
  id: 'galaxy',
  name: 'Galaxy',
  auth: {
    provider: 'google-play-games',
    clientId: '1234-abc.apps.googleusercontent.com',
    clientSecretEnv: 'GALAXY_GOOGLE_CLIENT_SECRET',
    applicationId: '123456789012',
  },
  adapters: { score: { type: 'bounded-score', options: {} } },
  boards: [{ id: 'high-score', name: 'High score', order: 'desc', operator: 'best', periods: ['all'], source: { adapter: 'score', value: 'score' } }],
};

/** A second dev-provider game, for tokens used across games. */
export const otherGame: GameDefinition = { ...(demoManifest as Manifest).games[0]!, id: 'other', name: 'Other' };

/** The bundled demo plus the given games. */
export function manifestWith(...games: GameDefinition[]): Manifest {
  return { games: [...(demoManifest as Manifest).games, ...games] };
}

/** Stores a manifest version (confirmed: tests set their games up on purpose) and fails loudly when it is refused. */
export async function storeManifest(app: App, manifest: Manifest): Promise<void> {
  const result = await app.games.storeManifest(manifest, { author: 'test', confirm: true });
  if (result.outcome !== 'stored' && result.outcome !== 'unchanged') throw new Error(`manifest refused: ${JSON.stringify(result)}`);
}

export interface Session {
  accessToken: string;
  refreshToken: string;
  player: { id: string; displayName: string };
}

/** Signs in with the dev provider. */
export async function devSignIn(app: App, gameId: string, name: string): Promise<Session> {
  const response = await app.inject({ method: 'POST', url: `/v1/games/${gameId}/auth/exchange`, payload: { authorizationCode: `dev:${name}` } });
  if (response.statusCode !== 200) throw new Error(`sign-in failed: ${response.statusCode} ${response.body}`);
  return response.json() as Session;
}

export function bearer(accessToken: string): Record<string, string> {
  return { authorization: `Bearer ${accessToken}` };
}

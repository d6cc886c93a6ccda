import { readFileSync } from 'node:fs';
import fp from 'fastify-plugin';
import { checkManifest, type AdapterTypeInfo } from './manifest-check.js';
import { GameCatalog, InvalidManifestError } from './game-catalog.js';
import type { Manifest } from './manifest-schema.js';
import demoManifest from './demo-manifest.json' with { type: 'json' };
import type { GameApp } from '../database.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The games of the current manifest version, and its version history. */
    games: GameCatalog;
  }
}

export interface ManifestPluginOptions {
  adapterTypes: ReadonlyMap<string, AdapterTypeInfo>;
  /** GAME_MANIFEST_FILE: stored as a new version at boot when it differs from the newest. */
  manifestFile?: string | undefined;
  /** How often to look for a version another instance stored. */
  refreshIntervalMs: number;
}

function readManifestFile(path: string): { path: string; document: unknown } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`GAME_MANIFEST_FILE ${path} cannot be read: ${(error as Error).message}`, { cause: error });
  }
  try {
    return { path, document: JSON.parse(text) };
  } catch (error) {
    throw new InvalidManifestError(`GAME_MANIFEST_FILE ${path}`, [{ path: '(document)', reason: `is not JSON: ${(error as Error).message}` }]);
  }
}

/** Decorates `app.games`, loads the manifest at boot and follows versions stored elsewhere. */
export const manifestPlugin = fp<ManifestPluginOptions>(
  async (app: GameApp, options) => {
    const bundled = demoManifest as Manifest;
    const bundledCheck = checkManifest(bundled, options.adapterTypes);
    if (!bundledCheck.ok) throw new InvalidManifestError('the bundled demo manifest', bundledCheck.problems);

    const catalog = new GameCatalog(app.database.db, app.clock, options.adapterTypes, bundled);
    await catalog.load(options.manifestFile ? readManifestFile(options.manifestFile) : undefined);
    app.decorate('games', catalog);

    const timer = setInterval(() => {
      catalog.refresh().catch((error: unknown) => app.log.error({ err: error }, 'manifest refresh failed; serving the previous version'));
    }, options.refreshIntervalMs);
    timer.unref();
    app.addHook('onClose', async () => clearInterval(timer));
  },
  { name: 'game-manifest' },
);

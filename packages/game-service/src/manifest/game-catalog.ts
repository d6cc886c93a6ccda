import type { Kysely } from 'kysely';
import { ApiError, type Clock } from '@playstack/server-kit';
import { checkManifest, type AdapterTypeInfo, type ManifestProblem } from './manifest-check.js';
import type { GameDefinition, Manifest } from './manifest-schema.js';
import {
  insertManifestVersion,
  latestManifest,
  latestManifestVersion,
  listManifestVersions,
  manifestVersion,
  type ManifestVersionSummary,
  type StoredManifest,
} from './manifest-store.js';

/** The manifest games are served from: a stored version, or the bundled demo (version null). */
export interface CurrentManifest {
  readonly version: number | null;
  readonly manifest: Manifest;
}

export type StoreManifestResult =
  | { readonly ok: true; readonly version: ManifestVersionSummary }
  | { readonly ok: false; readonly problems: readonly ManifestProblem[] };

/** Thrown at boot when a stored or configured manifest no longer passes the check. */
export class InvalidManifestError extends Error {
  override name = 'InvalidManifestError';
  constructor(
    where: string,
    readonly problems: readonly ManifestProblem[],
  ) {
    super(`${where} is not a valid manifest: ${problems.map((p) => `${p.path}: ${p.reason}`).join('; ')}`);
  }
}

const defaultVersionListLimit = 100;

/**
 * The games of the current manifest version, looked up synchronously on every game request.
 * Storing a version switches this instance at once; other instances pick it up on `refresh`.
 */
export class GameCatalog {
  readonly #db: Kysely<any>;
  readonly #clock: Clock;
  readonly #adapterTypes: ReadonlyMap<string, AdapterTypeInfo>;
  #current: CurrentManifest;
  #byId: ReadonlyMap<string, GameDefinition>;

  constructor(db: Kysely<any>, clock: Clock, adapterTypes: ReadonlyMap<string, AdapterTypeInfo>, bundled: Manifest) {
    this.#db = db;
    this.#clock = clock;
    this.#adapterTypes = adapterTypes;
    this.#current = { version: null, manifest: bundled };
    this.#byId = indexGames(bundled);
  }

  get(gameId: string): GameDefinition | undefined {
    return this.#byId.get(gameId);
  }

  /** The game, or ApiError `game-not-found`. */
  require(gameId: string): GameDefinition {
    const game = this.#byId.get(gameId);
    if (!game) throw new ApiError('game-not-found', `No game "${gameId}" in the manifest.`);
    return game;
  }

  list(): readonly GameDefinition[] {
    return this.#current.manifest.games;
  }

  get current(): CurrentManifest {
    return this.#current;
  }

  /** Checks a document against the schema and the adapter registry without storing it. */
  check(document: unknown) {
    return checkManifest(document, this.#adapterTypes);
  }

  /** Stores a valid document as the next version and serves it; an invalid one is refused with every problem. */
  async storeManifest(document: unknown, author?: string): Promise<StoreManifestResult> {
    const result = this.check(document);
    if (!result.ok) return { ok: false, problems: result.problems };
    return { ok: true, version: await this.#store(result.manifest, JSON.stringify(result.manifest), author ?? null) };
  }

  /** Appends a checked manifest (`document` is its JSON) as the next version and serves it. */
  async #store(manifest: Manifest, document: string, author: string | null): Promise<ManifestVersionSummary> {
    const stored = await insertManifestVersion(this.#db, document, author, this.#clock.now());
    this.#serve(stored.version, manifest);
    return stored;
  }

  async listVersions(limit = defaultVersionListLimit): Promise<ManifestVersionSummary[]> {
    return listManifestVersions(this.#db, limit);
  }

  async getVersion(version: number): Promise<StoredManifest | undefined> {
    return manifestVersion(this.#db, version);
  }

  /**
   * Serves the newest stored version when it is newer than the one served. A stored version
   * that no longer passes the check (an adapter type was removed) throws; the served one stays.
   */
  async refresh(): Promise<void> {
    if (!this.#isNewer(await latestManifestVersion(this.#db))) return;
    const stored = await latestManifest(this.#db);
    // Asked again: a storeManifest on this instance may have served a newer one meanwhile.
    if (!stored || !this.#isNewer(stored.version)) return;
    const result = this.check(JSON.parse(stored.document));
    if (!result.ok) throw new InvalidManifestError(`stored manifest version ${stored.version}`, result.problems);
    this.#serve(stored.version, result.manifest);
  }

  /**
   * At boot: the file named by GAME_MANIFEST_FILE becomes a new version unless it equals the
   * newest stored one; without a file the newest stored version is served, else the bundled demo.
   */
  async load(fileDocument: { path: string; document: unknown } | undefined): Promise<void> {
    if (fileDocument) {
      const result = this.check(fileDocument.document);
      if (!result.ok) throw new InvalidManifestError(`GAME_MANIFEST_FILE ${fileDocument.path}`, result.problems);
      const document = JSON.stringify(result.manifest);
      const latest = await latestManifest(this.#db);
      // The file as stored already: served as checked here, without reading it back.
      if (latest?.document === document) this.#serve(latest.version, result.manifest);
      else await this.#store(result.manifest, document, `GAME_MANIFEST_FILE ${fileDocument.path}`);
      return;
    }
    await this.refresh();
  }

  /** Stored versions only move forward: the bundled demo (null) is older than any. */
  #isNewer(version: number): boolean {
    return version > 0 && (this.#current.version === null || version > this.#current.version);
  }

  /**
   * Serves a stored version unless a newer one already is: a refresh or a store that read its
   * version before another one was served must not take the instance back.
   */
  #serve(version: number, manifest: Manifest): void {
    if (!this.#isNewer(version)) return;
    this.#current = { version, manifest };
    this.#byId = indexGames(manifest);
  }
}

function indexGames(manifest: Manifest): ReadonlyMap<string, GameDefinition> {
  return new Map(manifest.games.map((game) => [game.id, game]));
}

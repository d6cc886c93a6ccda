import { ApiError, type Clock } from '@playstack/server-kit';
import { describeChanges, removedParts, sameManifest, type ManifestDataCounter, type OrphanedPart } from './manifest-changes.js';
import { checkManifest, type AdapterTypeInfo, type ManifestProblem } from './manifest-check.js';
import { manifestDiff, type ManifestDiff } from './manifest-diff.js';
import { Value } from '@sinclair/typebox/value';
import { Manifest as ManifestSchema, type GameDefinition, type Manifest } from './manifest-schema.js';
import {
  insertManifestVersion,
  latestManifest,
  latestManifestVersion,
  listManifestVersions,
  manifestVersion,
  type ManifestVersionSummary,
  type StoredManifest,
} from './manifest-store.js';
import './manifest-error-codes.js';
import type { GameDb } from '../database.js';

// The catalog is the manifest feature's public service: a stored version is described to others
// (the admin pages) by this summary, not by reading the store.
export type { ManifestVersionSummary };

/** The manifest games are served from: a stored version, or the bundled demo (version null). */
export interface CurrentManifest {
  readonly version: number | null;
  readonly manifest: Manifest;
}

/**
 * What storing a manifest did: `stored` a new version; `unchanged` (the newest stored version
 * is the same document, nothing stored); `invalid` (refused with every problem); or
 * `needs-confirmation` (valid, but it removes games, boards or adapters that data refers to:
 * stored only when asked again with `confirm`).
 */
export type StoreManifestResult =
  | { readonly outcome: 'stored'; readonly version: ManifestVersionSummary }
  | { readonly outcome: 'unchanged'; readonly version: ManifestVersionSummary }
  | { readonly outcome: 'invalid'; readonly problems: readonly ManifestProblem[] }
  | { readonly outcome: 'needs-confirmation'; readonly orphans: readonly OrphanedPart[] };

export interface StoreManifestOptions {
  /** Who stores it (an admin's email, the manifest file), shown in the history. */
  author?: string;
  /** Store it even though it orphans data. */
  confirm?: boolean;
  /** The stored version this document is taken from (a rollback), said first in the history. */
  rollbackOf?: number;
}

/**
 * What storing a document would do, nothing stored: `invalid` (every problem), or the line diff
 * against the newest stored version (`against`; null: the bundled demo) and what it would orphan.
 */
export type ManifestPreview =
  | { readonly outcome: 'invalid'; readonly problems: readonly ManifestProblem[] }
  | { readonly outcome: 'preview'; readonly against: number | null; readonly diff: ManifestDiff; readonly orphans: readonly OrphanedPart[] };

/** A stored version with its document, and how it differs from the newest stored version (what rolling back to it changes). */
export interface ManifestVersionView {
  readonly version: ManifestVersionSummary;
  readonly document: unknown;
  readonly against: number | null;
  readonly diff: ManifestDiff;
}

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
  readonly #db: GameDb;
  readonly #clock: Clock;
  readonly #adapterTypes: ReadonlyMap<string, AdapterTypeInfo>;
  readonly #dataCounters = new Map<string, ManifestDataCounter>();
  #current: CurrentManifest;
  #byId: ReadonlyMap<string, GameDefinition>;

  constructor(db: GameDb, clock: Clock, adapterTypes: ReadonlyMap<string, AdapterTypeInfo>, bundled: Manifest) {
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

  /**
   * Registers how much of a feature's data refers to games, boards or adapters (under the name
   * the count is shown as: `players`, `runs`, `entries`).
   */
  registerDataCounter(name: string, counter: ManifestDataCounter): void {
    if (this.#dataCounters.has(name)) throw new Error(`a manifest data counter "${name}" is already registered`);
    this.#dataCounters.set(name, counter);
  }

  /**
   * Stores a valid document as the next version and serves it, unless it is the newest stored
   * version again, or it removes games, boards or adapters that data refers to and `confirm` is
   * not set. An invalid document is refused with every problem.
   */
  async storeManifest(document: unknown, options: StoreManifestOptions = {}): Promise<StoreManifestResult> {
    const result = this.check(document);
    if (!result.ok) return { outcome: 'invalid', problems: result.problems };
    const latest = await latestManifest(this.#db);
    const previous = latest ? storedShape(latest.document) : undefined;
    if (latest && previous && sameManifest(previous, result.manifest)) {
      this.#serve(latest.version, result.manifest);
      return { outcome: 'unchanged', version: latest };
    }
    const orphans = await this.orphansOf(previous ?? this.#current.manifest, result.manifest);
    if (orphans.length > 0 && !options.confirm) return { outcome: 'needs-confirmation', orphans };
    const changes = [...(options.rollbackOf === undefined ? [] : [`rolled back to version ${options.rollbackOf}`]), ...describeChanges(previous, result.manifest, orphans)];
    return { outcome: 'stored', version: await this.#store(result.manifest, JSON.stringify(result.manifest), options.author ?? null, changes) };
  }

  /** What storing `document` would change and orphan, without storing it. */
  async previewManifest(document: unknown): Promise<ManifestPreview> {
    const result = this.check(document);
    if (!result.ok) return { outcome: 'invalid', problems: result.problems };
    const base = await this.#base();
    const orphans = await this.orphansOf(base.shape ?? this.#current.manifest, result.manifest);
    return { outcome: 'preview', against: base.version, diff: manifestDiff(base.document, result.manifest), orphans };
  }

  /** A stored version's document and its diff from the newest stored version, or undefined when there is no such version. */
  async versionView(version: number): Promise<ManifestVersionView | undefined> {
    const stored = await manifestVersion(this.#db, version);
    if (!stored) return undefined;
    const { document: text, ...summary } = stored;
    const document: unknown = JSON.parse(text);
    const base = await this.#base();
    return { version: summary, document, against: base.version, diff: manifestDiff(base.document, document) };
  }

  /**
   * Stores a stored version's document again as the next version (a rollback), under the same
   * rules as any new manifest (checked, `unchanged` when it is the newest, orphans confirmed);
   * undefined when there is no such version.
   */
  async rollBack(version: number, options: Omit<StoreManifestOptions, 'rollbackOf'> = {}): Promise<StoreManifestResult | undefined> {
    const stored = await manifestVersion(this.#db, version);
    if (!stored) return undefined;
    return this.storeManifest(JSON.parse(stored.document), { ...options, rollbackOf: version });
  }

  /** What a new manifest is compared with: the newest stored version, else the bundled demo served. */
  async #base(): Promise<{ version: number | null; document: unknown; shape: Manifest | undefined }> {
    const latest = await latestManifest(this.#db);
    if (!latest) return { version: null, document: this.#current.manifest, shape: this.#current.manifest };
    return { version: latest.version, document: JSON.parse(latest.document), shape: storedShape(latest.document) };
  }

  /** The parts `previous` has and `next` drops that some registered feature still holds data for. */
  async orphansOf(previous: Manifest, next: Manifest): Promise<OrphanedPart[]> {
    const orphans: OrphanedPart[] = [];
    for (const part of removedParts(previous, next)) {
      const data: Record<string, number> = {};
      for (const [name, count] of this.#dataCounters) data[name] = await count(part);
      if (Object.values(data).some((count) => count > 0)) orphans.push({ part, data });
    }
    return orphans;
  }

  /** Appends a checked manifest (`document` is its JSON) as the next version and serves it. */
  async #store(manifest: Manifest, document: string, author: string | null, changes: readonly string[]): Promise<ManifestVersionSummary> {
    const stored = await insertManifestVersion(this.#db, document, author, changes, this.#clock.now());
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
   * Deploying the file is the operator's confirmation: it is stored even if it removes parts with
   * data (the history says what it removed).
   */
  async load(fileDocument: { path: string; document: unknown } | undefined): Promise<void> {
    if (!fileDocument) {
      await this.refresh();
      return;
    }
    const where = `GAME_MANIFEST_FILE ${fileDocument.path}`;
    const stored = await this.storeManifest(fileDocument.document, { author: where, confirm: true });
    if (stored.outcome === 'invalid') throw new InvalidManifestError(where, stored.problems);
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

/**
 * A stored document as a manifest to compare with, when it has a manifest's shape (an older
 * version may no longer pass the whole check, an adapter type retired say, and still compare).
 */
function storedShape(document: string): Manifest | undefined {
  const parsed: unknown = JSON.parse(document);
  return Value.Check(ManifestSchema, parsed) ? parsed : undefined;
}

function indexGames(manifest: Manifest): ReadonlyMap<string, GameDefinition> {
  return new Map(manifest.games.map((game) => [game.id, game]));
}

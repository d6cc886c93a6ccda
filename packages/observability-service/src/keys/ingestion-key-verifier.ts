import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { ObservabilityDb } from '../database.js';
import type { Counter } from 'prom-client';
import type { ChangeFeed, Clock } from '@playstack/server-kit';
import { bearerCredential } from './ingestion-key-format.js';
import { findActiveIngestionKeyByHash, recordIngestionKeysLastUsed } from './keys-store.js';

/** Who sent an envelope: a named key, or the legacy `SERVICE_API_KEY`. */
export interface VerifiedIngestionKey {
  keyId: string;
  name: string;
  legacy: boolean;
}

/** The id and name the legacy key is reported under. */
export const legacyIngestionKey: VerifiedIngestionKey = Object.freeze({ keyId: 'legacy', name: 'SERVICE_API_KEY', legacy: true });

export interface IngestionKeyVerifierOptions {
  db: ObservabilityDb;
  clock: Clock;
  logger: FastifyBaseLogger;
  /** `SERVICE_API_KEY`; undefined disables the legacy key. */
  legacyKey: string | undefined;
  legacyUses: Counter;
  /** Carries key changes to the other instances (and theirs here). */
  changes: ChangeFeed;
  /** How long a known key is trusted without asking the database (a backstop for a missed change). */
  cacheTtlMs: number;
  /** The same while the change feed is disconnected (a revocation elsewhere would not be heard). */
  disconnectedCacheTtlMs: number;
  /** How long an unknown key is remembered as unknown (spares the database a flood of bad keys). */
  negativeCacheTtlMs: number;
  maxCacheEntries: number;
  lastUsedFlushIntervalMs: number;
}

interface CacheEntry {
  key: VerifiedIngestionKey | undefined;
  expiresAt: number;
}

const changesTopic = 'ingestion-keys';

/**
 * Verifies `Authorization: Bearer <key>` for the ingest endpoint without a database round trip
 * per envelope: lookups are cached by key hash, last-used times are batched in memory and
 * flushed periodically. Revocation clears the cache at once, here and (through the change feed:
 * PostgreSQL LISTEN/NOTIFY, or Redis pub/sub on SQLite) on every other instance.
 */
export class IngestionKeyVerifier {
  readonly #options: IngestionKeyVerifierOptions;
  readonly #cache = new Map<string, CacheEntry>();
  readonly #inFlight = new Map<string, Promise<VerifiedIngestionKey | undefined>>();
  readonly #lastUsed = new Map<string, number>();
  // Bumped on every invalidation so a lookup that started before a revocation cannot repopulate
  // the cache with the revoked key after it.
  #generation = 0;
  #legacyLogged = false;
  #flushTimer: NodeJS.Timeout | undefined;
  /** The change feed is disconnected: changes elsewhere go unheard, so answers are kept briefly. */
  #feedDown = false;
  readonly #legacyDigest: Buffer | undefined;

  constructor(options: IngestionKeyVerifierOptions) {
    this.#options = options;
    this.#legacyDigest = options.legacyKey === undefined ? undefined : sha256(options.legacyKey);
  }

  /** Starts the last-used flush timer and listens for the other instances' key changes. */
  async start(): Promise<void> {
    this.#flushTimer = setInterval(() => {
      this.flushLastUsed().catch((error: unknown) => this.#options.logger.warn({ err: error }, 'could not record ingestion keys last used'));
    }, this.#options.lastUsedFlushIntervalMs);
    this.#flushTimer.unref();
    await this.#options.changes.subscribe(changesTopic, {
      onMessage: () => this.#forgetAll(),
      onLost: () => {
        this.#feedDown = true;
        this.#forgetAll();
      },
      // Changes announced while disconnected were not heard: forgetting everything covers them.
      onMissed: () => {
        this.#feedDown = false;
        this.#forgetAll();
      },
    });
  }

  /** Stops the timer and flushes pending last-used times (the platform closes the change feed). */
  async close(): Promise<void> {
    if (this.#flushTimer) clearInterval(this.#flushTimer);
    await this.flushLastUsed().catch((error: unknown) => this.#options.logger.warn({ err: error }, 'could not record ingestion keys last used'));
  }

  /** The key an `Authorization` header carries, or undefined when it is missing, unknown or revoked. */
  async verify(authorization: string | undefined): Promise<VerifiedIngestionKey | undefined> {
    const presented = bearerCredential(authorization);
    if (!presented) return undefined;
    // One digest serves both checks: the constant-time legacy comparison (digests have equal
    // lengths, so neither the legacy key's content nor its length leaks) and the stored-hash
    // lookup (the same SHA-256 as hashOpaqueToken, in hex).
    const digest = sha256(presented);
    if (this.#legacyDigest && timingSafeEqual(digest, this.#legacyDigest)) return this.#legacyUsed();
    const verified = await this.#lookup(digest.toString('hex'));
    if (verified) this.#lastUsed.set(verified.keyId, this.#options.clock.now());
    return verified;
  }

  /** Drops every cached answer here and on the other instances; call after creating or revoking a key. */
  async keysChanged(): Promise<void> {
    this.#forgetAll();
    // Without the announcement (the feed failed) the others learn of it within `cacheTtlMs`.
    await this.#options.changes.publish(changesTopic, 'changed');
  }

  /** Writes the batched last-used times (one update per key used since the last flush). */
  async flushLastUsed(): Promise<void> {
    if (this.#lastUsed.size === 0) return;
    const batch = new Map(this.#lastUsed);
    this.#lastUsed.clear();
    try {
      await recordIngestionKeysLastUsed(this.#options.db, batch);
    } catch (error) {
      for (const [id, at] of batch) if ((this.#lastUsed.get(id) ?? 0) < at) this.#lastUsed.set(id, at);
      throw error;
    }
  }

  #forgetAll(): void {
    this.#generation += 1;
    this.#cache.clear();
    this.#inFlight.clear();
  }

  #legacyUsed(): VerifiedIngestionKey {
    this.#options.legacyUses.inc();
    if (!this.#legacyLogged) {
      this.#legacyLogged = true;
      this.#options.logger.warn('an envelope was authenticated with the legacy SERVICE_API_KEY; create a named ingestion key and unset it');
    }
    return legacyIngestionKey;
  }

  async #lookup(keyHash: string): Promise<VerifiedIngestionKey | undefined> {
    const now = this.#options.clock.now();
    const cached = this.#cache.get(keyHash);
    if (cached && cached.expiresAt > now) return cached.key;
    const pending = this.#inFlight.get(keyHash);
    if (pending) return pending;
    const generation = this.#generation;
    const load = findActiveIngestionKeyByHash(this.#options.db, keyHash)
      .then((row) => {
        const key = row ? { keyId: row.id, name: row.name, legacy: false } : undefined;
        if (generation === this.#generation) this.#remember(keyHash, key, now);
        return key;
      })
      .finally(() => {
        if (this.#inFlight.get(keyHash) === load) this.#inFlight.delete(keyHash);
      });
    this.#inFlight.set(keyHash, load);
    return load;
  }

  #remember(keyHash: string, key: VerifiedIngestionKey | undefined, now: number): void {
    this.#cache.delete(keyHash);
    if (this.#cache.size >= this.#options.maxCacheEntries) {
      // Maps iterate in insertion order: the first entry is the oldest.
      const oldest = this.#cache.keys().next().value;
      if (oldest !== undefined) this.#cache.delete(oldest);
    }
    const ttl = Math.min(key ? this.#options.cacheTtlMs : this.#options.negativeCacheTtlMs, this.#feedDown ? this.#options.disconnectedCacheTtlMs : Infinity);
    this.#cache.set(keyHash, { key, expiresAt: now + ttl });
  }
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

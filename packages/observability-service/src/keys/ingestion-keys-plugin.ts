import fp from 'fastify-plugin';
import { Counter } from 'prom-client';
import { registerBootstrapKey } from './bootstrap-key.js';
import { IngestionKeyVerifier } from './ingestion-key-verifier.js';
import type { ObservabilityApp } from '../database.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Verifies ingestion credentials; `verify(request.headers.authorization)`. */
    ingestionKeys: IngestionKeyVerifier;
  }
}

export interface IngestionKeysOptions {
  /** `SERVICE_API_KEY`; undefined disables the legacy key. */
  legacyKey: string | undefined;
  lastUsedFlushIntervalMs: number;
  /** `INGESTION_KEY_FILE`: a key registered at start (see `registerBootstrapKey`). */
  bootstrapKeyFile?: string | undefined;
}

/**
 * A missed announcement (or none: SQLite, one instance) lets another instance's revocation reach
 * this one within this time; while the change feed is disconnected, within the second.
 */
const keyCacheTtlMs = 30_000;
const disconnectedKeyCacheTtlMs = 1_000;
const unknownKeyCacheTtlMs = 5_000;
const maxCachedKeys = 10_000;

/** Decorates `app.ingestionKeys`, the verifier the ingest endpoint authenticates envelopes with. */
export const ingestionKeysPlugin = fp<IngestionKeysOptions>(
  async (app: ObservabilityApp, options) => {
    const database = app.database;
    const legacyUses = new Counter({
      name: 'observability_ingest_legacy_key_uses_total',
      help: 'Envelopes authenticated with the legacy SERVICE_API_KEY',
      registers: [app.metrics],
    });
    const verifier = new IngestionKeyVerifier({
      db: database.db,
      clock: app.clock,
      logger: app.log,
      legacyKey: options.legacyKey,
      legacyUses,
      changes: app.changes,
      cacheTtlMs: keyCacheTtlMs,
      disconnectedCacheTtlMs: disconnectedKeyCacheTtlMs,
      negativeCacheTtlMs: unknownKeyCacheTtlMs,
      maxCacheEntries: maxCachedKeys,
      lastUsedFlushIntervalMs: options.lastUsedFlushIntervalMs,
    });
    if (options.bootstrapKeyFile && (await registerBootstrapKey(database.db, options.bootstrapKeyFile, app.clock.now()))) {
      app.log.info({ path: options.bootstrapKeyFile }, 'registered the ingestion key in INGESTION_KEY_FILE');
    }
    await verifier.start();
    app.decorate('ingestionKeys', verifier);
    // onClose hooks run last-registered first, so this flush happens before the platform closes
    // the database, and after in-flight requests (whose key uses it records) have finished.
    app.addHook('onClose', async () => {
      await verifier.close();
    });
  },
  { name: 'ingestion-keys' },
);

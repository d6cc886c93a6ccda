import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { ConfigError, hashOpaqueToken } from '@playstack/server-kit';
import { ingestionKeyMarker } from './ingestion-key-format.js';
import { insertIngestionKey } from './keys-store.js';
import type { ObservabilityDb } from '../database.js';

/** `obsk_<8 hex>_<43 base64url>`, as `mintIngestionKey` makes them. */
const keyPattern = new RegExp(`^(${ingestionKeyMarker}[0-9a-f]{8})_[A-Za-z0-9_-]{43}$`);

/** The name a key registered from `INGESTION_KEY_FILE` is listed under. */
export const bootstrapKeyName = 'INGESTION_KEY_FILE';

/**
 * Registers the ingestion key in `path` (`INGESTION_KEY_FILE`), so a sender can be given a key
 * before any dashboard user exists (`npm start` does this for the bundled game service). Only its
 * hash is stored, as for a key made in the dashboard, where it is listed and can be revoked. A
 * key registered before is left as it is: a revoked one stays revoked.
 * @returns whether the key was new.
 */
export async function registerBootstrapKey(db: ObservabilityDb, path: string, now: number): Promise<boolean> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch (error) {
    throw new ConfigError(`INGESTION_KEY_FILE ${path} cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  const match = keyPattern.exec(text);
  if (!match) throw new ConfigError(`INGESTION_KEY_FILE ${path} does not hold an ingestion key (obsk_<8 hex>_<43 base64url characters>)`);
  const keyHash = hashOpaqueToken(text);
  const known = await db.selectFrom('ingestion_keys').select('id').where('key_hash', '=', keyHash).executeTakeFirst();
  if (known) return false;
  await insertIngestionKey(db, {
    id: randomUUID(),
    name: bootstrapKeyName,
    prefix: match[1]!,
    key_hash: keyHash,
    created_by: null,
    created_at: now,
    last_used_at: null,
    revoked_at: null,
  });
  return true;
}

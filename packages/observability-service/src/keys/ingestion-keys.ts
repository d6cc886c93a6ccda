import { randomUUID } from 'node:crypto';
import type { ObservabilityDb } from '../database.js';
import { hashOpaqueToken } from '@playstack/server-kit';
import { mintIngestionKey } from './ingestion-key-format.js';
import { insertIngestionKey, listIngestionKeys, revokeIngestionKey } from './keys-store.js';
import type { IngestionKeyRow } from './keys-tables.js';

/** What the key list shows: never the secret or its hash. */
export interface IngestionKeySummary {
  id: string;
  name: string;
  prefix: string;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

function summarize(row: IngestionKeyRow): IngestionKeySummary {
  return { id: row.id, name: row.name, prefix: row.prefix, createdAt: row.created_at, lastUsedAt: row.last_used_at, revokedAt: row.revoked_at };
}

/** Creates a named key; the returned `key` is the only time the secret exists outside the sender. */
export async function createIngestionKey(
  db: ObservabilityDb,
  input: { name: string; createdBy: string | null; now: number },
): Promise<IngestionKeySummary & { key: string }> {
  const { key, prefix } = mintIngestionKey();
  const row: IngestionKeyRow = {
    id: randomUUID(),
    name: input.name,
    prefix,
    key_hash: hashOpaqueToken(key),
    created_by: input.createdBy,
    created_at: input.now,
    last_used_at: null,
    revoked_at: null,
  };
  await insertIngestionKey(db, row);
  return { ...summarize(row), key };
}

/** Every key, newest first. */
export async function ingestionKeySummaries(db: ObservabilityDb): Promise<IngestionKeySummary[]> {
  return (await listIngestionKeys(db)).map(summarize);
}

/** Revokes a key; false when it does not exist or was revoked already. */
export async function revokeIngestionKeyById(db: ObservabilityDb, id: string, now: number): Promise<boolean> {
  return revokeIngestionKey(db, id, now);
}

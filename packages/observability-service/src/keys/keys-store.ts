import type { ObservabilityDb } from '../database.js';
import type { IngestionKeyRow } from './keys-tables.js';

/** Stores a new key (hash only). */
export async function insertIngestionKey(db: ObservabilityDb, row: IngestionKeyRow): Promise<void> {
  await db.insertInto('ingestion_keys').values(row).execute();
}

/** Every key, newest first, revoked ones included (the list shows when they were revoked). */
export async function listIngestionKeys(db: ObservabilityDb): Promise<IngestionKeyRow[]> {
  return db.selectFrom('ingestion_keys').selectAll().orderBy('created_at', 'desc').orderBy('id').execute();
}

/** Marks a key revoked; false when there is no such key or it was already revoked. */
export async function revokeIngestionKey(db: ObservabilityDb, id: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('ingestion_keys')
    .set({ revoked_at: now })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The active (not revoked) key whose hash this is. */
export async function findActiveIngestionKeyByHash(
  db: ObservabilityDb,
  keyHash: string,
): Promise<Pick<IngestionKeyRow, 'id' | 'name'> | undefined> {
  return db
    .selectFrom('ingestion_keys')
    .select(['id', 'name'])
    .where('key_hash', '=', keyHash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

/** Moves last-used times forward (never back: instances flush out of order). */
export async function recordIngestionKeysLastUsed(db: ObservabilityDb, lastUsed: ReadonlyMap<string, number>): Promise<void> {
  for (const [id, at] of lastUsed) {
    await db
      .updateTable('ingestion_keys')
      .set({ last_used_at: at })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)]))
      .execute();
  }
}

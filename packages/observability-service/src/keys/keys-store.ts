import type { Kysely } from 'kysely';

/** A row of `ingestion_keys`. */
export interface IngestionKeyRow {
  id: string;
  name: string;
  prefix: string;
  key_hash: string;
  created_by: string | null;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

export interface KeysTables {
  ingestion_keys: IngestionKeyRow;
}

// Stores accept any database handle (services compose several features' tables); queries stay typed.
const typed = (db: Kysely<any>) => db as Kysely<KeysTables>;

/** Stores a new key (hash only). */
export async function insertIngestionKey(db: Kysely<any>, row: IngestionKeyRow): Promise<void> {
  await typed(db).insertInto('ingestion_keys').values(row).execute();
}

/** Every key, newest first, revoked ones included (the list shows when they were revoked). */
export async function listIngestionKeys(db: Kysely<any>): Promise<IngestionKeyRow[]> {
  return typed(db).selectFrom('ingestion_keys').selectAll().orderBy('created_at', 'desc').orderBy('id').execute();
}

/** Marks a key revoked; false when there is no such key or it was already revoked. */
export async function revokeIngestionKey(db: Kysely<any>, id: string, now: number): Promise<boolean> {
  const result = await typed(db)
    .updateTable('ingestion_keys')
    .set({ revoked_at: now })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The active (not revoked) key whose hash this is. */
export async function findActiveIngestionKeyByHash(
  db: Kysely<any>,
  keyHash: string,
): Promise<Pick<IngestionKeyRow, 'id' | 'name'> | undefined> {
  return typed(db)
    .selectFrom('ingestion_keys')
    .select(['id', 'name'])
    .where('key_hash', '=', keyHash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

/** Moves last-used times forward (never back: instances flush out of order). */
export async function recordIngestionKeysLastUsed(db: Kysely<any>, lastUsed: ReadonlyMap<string, number>): Promise<void> {
  for (const [id, at] of lastUsed) {
    await typed(db)
      .updateTable('ingestion_keys')
      .set({ last_used_at: at })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)]))
      .execute();
  }
}

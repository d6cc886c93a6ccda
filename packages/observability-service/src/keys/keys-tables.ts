// The ingestion keys feature's table (src/migrations/2026-11-21-01-users-sessions-keys.ts).

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

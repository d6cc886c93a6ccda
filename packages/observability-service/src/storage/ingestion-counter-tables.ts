// The ingestion counters' table, read by the health view (src/migrations/2026-11-21-03-ingestion-minutes.ts).

/** Per receipt minute: items ingestion accepted and refused. */
export interface IngestionMinutesTable {
  /** Epoch ms of the UTC minute the items were received in. */
  minute: number;
  accepted: number;
  refused: number;
}

export interface IngestionCounterTables {
  ingestion_minutes: IngestionMinutesTable;
}

import type { SqlitePragmaOptions } from '@playstack/server-kit/core';
import type { PackedLogRows } from '../logs/index.js';
import type { NewOccurrence } from '../storage/storage-tables.js';
import type { CommitReport } from './telemetry-store.js';

/** What the SQLite writer thread is started with (its `workerData`). */
export interface SqliteWriterSettings {
  /** The service database's file. */
  path: string;
  pragmas: SqlitePragmaOptions;
  /** Occurrences and log records committed together at most. */
  maxRowsPerTransaction: number;
  /** False: writes are not counted for the health view (OccurrenceWriterOptions.countsIngestion). */
  countsIngestion?: boolean | undefined;
}

/** A message to the writer thread. `now` is the service clock's time when it was sent. */
export type WriterRequest =
  | { type: 'write'; id: number; now: number; rows: readonly NewOccurrence[]; refused: number; logs: PackedLogRows }
  | { type: 'close' };

/** A message from the writer thread. */
export type WriterReply =
  | { type: 'ready' }
  | { type: 'done'; id: number }
  | { type: 'failed'; id: number; error: { name: string; message: string } }
  | { type: 'commit'; commit: CommitReport };

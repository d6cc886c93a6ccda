import type { RunPayload } from './api-types.js';
import type { ClientStorage } from './storage/client-storage.js';

/** A run waiting to be sent. Everything the library knows about a run lives in this one record. */
export interface QueuedRun {
  runId: string;
  gameId: string;
  adapterId: string;
  /** The player the run belongs to; null until a player is signed in to claim it. */
  playerId: string | null;
  payload: RunPayload;
  /** Epoch ms when the game submitted it; the age limit counts from here. */
  queuedAt: number;
  /** Failed attempts so far; drives the backoff. */
  attempts: number;
  /** Epoch ms before which the run is not sent again. */
  notBefore: number;
}

interface QueueDocument {
  format: 1;
  runs: readonly QueuedRun[];
}

export const runQueueStorageKey = 'run-queue';

/**
 * The persisted queue of unsent runs, one document under one key so that every change is a
 * single atomic write. A change that alters nothing writes nothing, which keeps the stored
 * bytes identical when, for instance, a sign-in fails.
 */
export class RunQueue {
  constructor(private readonly storage: ClientStorage) {}

  async list(): Promise<readonly QueuedRun[]> {
    return parseQueue(await this.storage.get(runQueueStorageKey)).runs;
  }

  /**
   * Applies `change` to the stored runs and stores the result if it differs, as one atomic
   * storage update: no other client sharing the storage can write between the read and the
   * write. `change` returns the new list and a value handed back to the caller.
   */
  update<Result>(change: (runs: readonly QueuedRun[]) => { runs: readonly QueuedRun[]; result: Result }): Promise<Result> {
    return this.storage.update(runQueueStorageKey, (text) => {
      const document = parseQueue(text);
      const { runs, result } = change(document.runs);
      if (runs === document.runs) return { value: text, result };
      // An empty queue leaves no key behind: no trace of accepted runs, not even an empty shell.
      return { value: runs.length === 0 ? undefined : JSON.stringify({ format: 1, runs } satisfies QueueDocument), result };
    });
  }
}

function parseQueue(text: string | undefined): QueueDocument {
  if (text === undefined) return { format: 1, runs: [] };
  const document = JSON.parse(text) as QueueDocument;
  if (document.format !== 1 || !Array.isArray(document.runs)) throw new Error('the stored run queue has an unknown format');
  return document;
}

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

// One lock per storage object: clients sharing a storage (a restart while the old instance is
// still finishing) must not interleave their read-modify-write cycles.
const locks = new WeakMap<ClientStorage, Promise<unknown>>();

/**
 * The persisted queue of unsent runs, one document under one key so that every change is a
 * single atomic write. A change that alters nothing writes nothing, which keeps the stored
 * bytes identical when, for instance, a sign-in fails.
 */
export class RunQueue {
  constructor(private readonly storage: ClientStorage) {}

  async list(): Promise<readonly QueuedRun[]> {
    await locks.get(this.storage)?.catch(() => undefined);
    return (await this.#read()).runs;
  }

  /**
   * Applies `change` to the stored runs under the lock and stores the result if it differs.
   * `change` returns the new list and a value handed back to the caller.
   */
  update<Result>(change: (runs: readonly QueuedRun[]) => { runs: readonly QueuedRun[]; result: Result }): Promise<Result> {
    const previous = locks.get(this.storage) ?? Promise.resolve();
    const next = previous
      .catch(() => undefined)
      .then(async () => {
        const document = await this.#read();
        const { runs, result } = change(document.runs);
        if (runs !== document.runs) await this.#write(runs);
        return result;
      });
    locks.set(this.storage, next);
    return next;
  }

  async #read(): Promise<QueueDocument> {
    const text = await this.storage.get(runQueueStorageKey);
    if (text === undefined) return { format: 1, runs: [] };
    const document = JSON.parse(text) as QueueDocument;
    if (document.format !== 1 || !Array.isArray(document.runs)) throw new Error('the stored run queue has an unknown format');
    return document;
  }

  async #write(runs: readonly QueuedRun[]): Promise<void> {
    // An empty queue leaves no key behind: no trace of accepted runs, not even an empty shell.
    if (runs.length === 0) await this.storage.delete(runQueueStorageKey);
    else await this.storage.set(runQueueStorageKey, JSON.stringify({ format: 1, runs } satisfies QueueDocument));
  }
}

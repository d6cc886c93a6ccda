import type { DerivedResult, HintMismatch } from './adapters/adapter-type.js';

// A run as the runs feature shows it to others (admin pages): its status and its record. The
// table behind it stays in run-store.ts, which only this feature reads.

/** `accepted`; `flagged`: accepted, but the client's hints disagreed; `rejected`: evidence refused. */
export type RunStatus = 'accepted' | 'flagged' | 'rejected';
export const runStatuses: readonly RunStatus[] = ['accepted', 'flagged', 'rejected'];

/** A count of zero runs per status. */
export function emptyRunCounts(): Record<RunStatus, number> {
  return { accepted: 0, flagged: 0, rejected: 0 };
}

/** Identifies a run: a client's runId is unique per game and player. */
export interface RunKey {
  gameId: string;
  playerId: string;
  runId: string;
}

/** A run as operators see it. */
export interface RunRecord extends RunKey {
  id: number;
  adapterId: string;
  adapterType: string;
  adapterVersion: number;
  status: RunStatus;
  payload: unknown;
  result: DerivedResult | null;
  hintMismatches: HintMismatch[];
  rejectionReason: string | null;
  createdAt: number;
  /** An operator's review of a flagged run (`kept`, `rejected`), or null. */
  review: string | null;
  reviewedAt: number | null;
}

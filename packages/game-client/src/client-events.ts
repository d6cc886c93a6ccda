import type { PlayerSummary, RunAccepted } from './api-types.js';

/**
 * Why a session ended locally. `session-unreadable`: the stored session was damaged (not a
 * session this library wrote) and is treated as no session; queued runs are kept.
 */
export type SignedOutReason = 'logout' | 'session-ended' | 'player-deleted' | 'session-unreadable';

/** Everything the game can observe; subscribe with `client.on(name, listener)`. */
export interface GameClientEvents {
  /** The run is stored and will be sent when possible. */
  'run-queued': { runId: string; adapterId: string };
  /** The service accepted the run; nothing of it remains in local storage. */
  'run-accepted': { runId: string; adapterId: string; response: RunAccepted };
  /** The service refused the run for good (409 run-id-conflict, 422 evidence-rejected, other 4xx); it was removed. */
  'run-rejected': { runId: string; adapterId: string; status: number; code: string; message: string };
  /** The run waited longer than `maxRunAgeMs` and was discarded unsent. */
  'run-expired': { runId: string; adapterId: string; queuedAt: number };
  /** Sending failed in a way worth retrying; the next attempt waits `delayMs`. */
  'run-retry-scheduled': { runId: string; adapterId: string; attempts: number; delayMs: number; reason: string };
  'signed-in': { player: PlayerSummary };
  'signed-out': { reason: SignedOutReason };
}

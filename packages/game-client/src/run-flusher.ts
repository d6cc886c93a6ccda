import type { RunAccepted } from './api-types.js';
import type { GameClientEvents } from './client-events.js';
import { GameServiceError, NetworkError, SignedOutError } from './errors.js';
import type { TypedEmitter } from './event-emitter.js';
import { gamePath, isSuccess, serviceErrorOf, type JsonResponse } from './http-transport.js';
import { isRetryableStatus, retryDelayMs, type BackoffOptions } from './retry-policy.js';
import type { QueuedRun, RunQueue } from './run-queue.js';
import type { SessionManager } from './session-manager.js';

export interface RunFlusherOptions {
  gameId: string;
  queue: RunQueue;
  sessions: SessionManager;
  events: TypedEmitter<GameClientEvents>;
  now: () => number;
  random: () => number;
  backoff: BackoffOptions;
  maxRunAgeMs: number;
  isOnline: () => boolean;
}

/** What one flush did. */
export interface FlushReport {
  accepted: number;
  rejected: number;
  expired: number;
  /** Runs of this game still queued, including other players' runs. */
  remaining: number;
  /** Why the flush stopped before the queue was empty, if it did. */
  stoppedBy: 'signed-out' | 'offline' | 'backoff' | undefined;
  /** When a run of the signed-in player is next due, in ms from now; undefined when none is waiting. */
  nextAttemptInMs: number | undefined;
}

type Outcome =
  | { kind: 'accepted'; response: RunAccepted }
  | { kind: 'rejected'; error: GameServiceError }
  | { kind: 'retry'; reason: string; retryAfterMs: number | undefined }
  | { kind: 'signed-out' };

// setTimeout's ceiling; longer waits are re-armed when they fire.
const maxTimerDelayMs = 2_147_483_647;
// Where no `online` event tells us the network is back, background sending looks again this often.
const offlineRecheckMs = 30_000;

/**
 * Sends queued runs, oldest first, under the signed-in player's session. Network errors, 408,
 * 429 and 5xx are retried with capped, jittered exponential backoff (never before
 * `Retry-After`); other 4xx remove the run with a `run-rejected` event. One flush runs at a
 * time; a flush requested meanwhile runs once right after.
 */
export class RunFlusher {
  readonly #options: RunFlusherOptions;
  #running: Promise<FlushReport> | undefined;
  #rerun: Promise<FlushReport> | undefined;
  // After a retryable failure the whole queue waits: the service is down or we are offline, and
  // the next run would fail the same way. Each run's own `notBefore` survives restarts.
  #pausedUntil = 0;
  #started = false;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(options: RunFlusherOptions) {
    this.#options = options;
  }

  flush(): Promise<FlushReport> {
    if (this.#running) {
      this.#rerun ??= this.#running
        .catch(() => undefined)
        .then(() => {
          this.#rerun = undefined;
          return this.flush();
        });
      return this.#rerun;
    }
    const running = this.#pass().finally(() => {
      this.#running = undefined;
    });
    this.#running = running;
    return running;
  }

  /** Flushes now and keeps flushing whenever runs become due. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.kick();
  }

  /** Stops background flushing and waits for a flush in progress to finish. */
  async stop(): Promise<void> {
    this.#started = false;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await Promise.allSettled([this.#running, this.#rerun]);
  }

  /** Asks for a flush soon if background flushing is on (a run was queued, the player signed in, the network came back). */
  kick(): void {
    if (!this.#started) return;
    this.flush().catch((error: unknown) => {
      console.error('game-client: flushing the run queue failed', error);
      this.#schedule(this.#options.backoff.maxDelayMs);
    });
  }

  /** Forgets the pause after a failure, e.g. when the network is known to be back. */
  resume(): void {
    this.#pausedUntil = 0;
    this.kick();
  }

  async #pass(): Promise<FlushReport> {
    const { gameId, queue, sessions, events } = this.#options;
    const report: FlushReport = { accepted: 0, rejected: 0, expired: 0, remaining: 0, stoppedBy: undefined, nextAttemptInMs: undefined };

    report.expired = await this.#discardExpired();
    const session = await sessions.current();
    if (!session) report.stoppedBy = 'signed-out';
    else if (!this.#options.isOnline()) report.stoppedBy = 'offline';
    else if (this.#pausedUntil > this.#options.now()) report.stoppedBy = 'backoff';
    else {
      const playerId = session.player.id;
      await this.#claimUnownedRuns(playerId);
      for (;;) {
        const run = await this.#nextDue(playerId);
        if (!run) break;
        const outcome = await this.#send(run, playerId);
        if (outcome.kind === 'accepted') {
          await this.#remove(run.runId);
          report.accepted += 1;
          events.emit('run-accepted', { runId: run.runId, adapterId: run.adapterId, response: outcome.response });
        } else if (outcome.kind === 'rejected') {
          await this.#remove(run.runId);
          report.rejected += 1;
          const { status, code, message } = outcome.error;
          events.emit('run-rejected', { runId: run.runId, adapterId: run.adapterId, status, code, message });
        } else if (outcome.kind === 'retry') {
          await this.#postpone(run, outcome);
          report.stoppedBy = 'backoff';
          break;
        } else {
          report.stoppedBy = 'signed-out';
          break;
        }
      }
    }

    const remaining = (await queue.list()).filter((run) => run.gameId === gameId);
    report.remaining = remaining.length;
    const current = await sessions.current();
    const mine = remaining.filter((run) => current && (run.playerId === current.player.id || run.playerId === null));
    if (mine.length > 0 && current) {
      const due = Math.max(this.#pausedUntil, Math.min(...mine.map((run) => run.notBefore)));
      report.nextAttemptInMs = Math.max(0, due - this.#options.now());
      this.#schedule(report.stoppedBy === 'offline' ? Math.max(offlineRecheckMs, report.nextAttemptInMs) : report.nextAttemptInMs);
    }
    return report;
  }

  async #discardExpired(): Promise<number> {
    const { gameId, maxRunAgeMs } = this.#options;
    const now = this.#options.now();
    const expired = await this.#options.queue.update((runs) => {
      const gone = runs.filter((run) => run.gameId === gameId && now - run.queuedAt >= maxRunAgeMs);
      return { runs: gone.length ? runs.filter((run) => !gone.includes(run)) : runs, result: gone };
    });
    for (const run of expired) this.#options.events.emit('run-expired', { runId: run.runId, adapterId: run.adapterId, queuedAt: run.queuedAt });
    return expired.length;
  }

  /**
   * Runs played before anyone signed in belong to the first player who does. The claim is
   * stored before anything is sent: the service keys run ids per player, so the same run sent
   * under two players would count as two runs.
   */
  async #claimUnownedRuns(playerId: string): Promise<void> {
    const { gameId } = this.#options;
    await this.#options.queue.update((runs) => {
      if (!runs.some((run) => run.gameId === gameId && run.playerId === null)) return { runs, result: undefined };
      return { runs: runs.map((run) => (run.gameId === gameId && run.playerId === null ? { ...run, playerId } : run)), result: undefined };
    });
  }

  async #nextDue(playerId: string): Promise<QueuedRun | undefined> {
    const { gameId, maxRunAgeMs } = this.#options;
    const now = this.#options.now();
    return (await this.#options.queue.list()).find(
      (run) => run.gameId === gameId && run.playerId === playerId && run.notBefore <= now && now - run.queuedAt < maxRunAgeMs,
    );
  }

  async #send(run: QueuedRun, playerId: string): Promise<Outcome> {
    let response: JsonResponse;
    try {
      response = await this.#options.sessions.authorized(
        {
          method: 'POST',
          path: gamePath(run.gameId, `/runs/${encodeURIComponent(run.adapterId)}`),
          body: { runId: run.runId, payload: run.payload },
        },
        playerId,
      );
    } catch (error) {
      if (error instanceof SignedOutError) return { kind: 'signed-out' };
      if (error instanceof NetworkError) return { kind: 'retry', reason: error.message, retryAfterMs: undefined };
      // The refresh before or after the call failed without ending the session: try later.
      if (error instanceof GameServiceError) return { kind: 'retry', reason: `session refresh: ${error.code}`, retryAfterMs: error.retryAfterMs };
      throw error;
    }
    if (isSuccess(response)) return { kind: 'accepted', response: response.body as RunAccepted };
    const error = serviceErrorOf(response);
    // A 401 that survived a successful refresh is the service's trouble, not the run's.
    if (isRetryableStatus(response.status) || response.status === 401) {
      return { kind: 'retry', reason: `${response.status} ${error.code}`, retryAfterMs: response.retryAfterMs };
    }
    return { kind: 'rejected', error };
  }

  async #remove(runId: string): Promise<void> {
    await this.#options.queue.update((runs) => {
      const index = runs.findIndex((run) => run.runId === runId);
      return { runs: index === -1 ? runs : runs.toSpliced(index, 1), result: undefined };
    });
  }

  async #postpone(run: QueuedRun, outcome: { reason: string; retryAfterMs: number | undefined }): Promise<void> {
    const attempts = run.attempts + 1;
    const delayMs = retryDelayMs(attempts, outcome.retryAfterMs, this.#options.backoff, this.#options.random);
    const notBefore = this.#options.now() + delayMs;
    this.#pausedUntil = notBefore;
    const stillQueued = await this.#options.queue.update((runs) => {
      const index = runs.findIndex((queued) => queued.runId === run.runId);
      if (index === -1) return { runs, result: false };
      return { runs: runs.with(index, { ...runs[index]!, attempts, notBefore }), result: true };
    });
    if (stillQueued) {
      this.#options.events.emit('run-retry-scheduled', { runId: run.runId, adapterId: run.adapterId, attempts, delayMs, reason: outcome.reason });
    }
  }

  #schedule(delayMs: number): void {
    if (!this.#started) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.kick();
    }, Math.min(delayMs, maxTimerDelayMs));
    // A pending retry must not keep a Node process (a CLI game, a test) alive on its own.
    (this.#timer as { unref?: () => void }).unref?.();
  }
}

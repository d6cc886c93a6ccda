import { performance } from 'node:perf_hooks';
import { ApiError, inSpan, type Clock, type Dialect } from '@playstack/server-kit';
import type { BoardRefusal, BoardStanding, Leaderboards, PendingStandings } from '../leaderboards/leaderboard-service.js';
import type { GameDefinition } from '../manifest/manifest-schema.js';
import type { AdapterType, Derivation, DerivedResult } from './adapters/adapter-type.js';
import { awaited, runFlow, type Flow } from '../awaitable.js';
import { runContent, type RunContent } from '../canonical-json.js';
import { assertPayloadDepth, assertPayloadShape } from './payload-check.js';
import type { RunKey, RunStatus } from './run-record.js';
import { responsesStore, RunStatements, storeMissingRunResponse, type StoredOutcome } from './run-store.js';
import type { CommitWriter } from '../group-commit.js';
import './run-error-codes.js';
import type { GameDb } from '../database.js';

/** The 200 body of an accepted run. Stored, so a resubmission gets exactly this again. */
export interface RunAccepted {
  runId: string;
  adapterId: string;
  status: 'accepted';
  result: DerivedResult;
  leaderboards: BoardStanding[];
  /** Event boards the run fed that did not take it, and why (outside the window, or full). */
  notScored: BoardRefusal[];
}

/** What submissions need of the leaderboards feature: writes inside the run's transaction. */
export type ScoreRecorder = Pick<Leaderboards, 'recordScores'>;

export interface Submission {
  game: GameDefinition;
  player: { id: string; displayName: string };
  adapterId: string;
  runId: string;
  payload: Record<string, unknown>;
}

/**
 * How long a resubmission waits for the first submission's response to be stored (it is written
 * just after the ranks are published) before answering without placements: only a crash between
 * the run's commit and that write leaves it missing for longer.
 */
const defaultResponseWaitMs = 2_000;
const responsePollMs = 20;
/** The writer's lane of the stored responses (any: they lock only their runs' rows, which nothing else writes meanwhile). */
const responsesLane = 'responses';

type WriteOutcome =
  | { kind: 'inserted'; id: number; recorded: PendingStandings | undefined }
  | { kind: 'exists' };

/** A submission once its adapter is found and its payload's depth checked. */
interface CheckedSubmission {
  key: RunKey;
  type: AdapterType;
  options: unknown;
  content: RunContent;
}

/** A run's status from its derivation: refused evidence is rejected, disagreeing hints flag it. */
function statusOf(derivation: Derivation): RunStatus {
  return !derivation.ok ? 'rejected' : derivation.hintMismatches.length > 0 ? 'flagged' : 'accepted';
}

function runKeyOf(key: RunKey): string {
  return `${key.gameId}\u0000${key.playerId}\u0000${key.runId}`;
}

/** A stored response; those stored before event boards existed have no `notScored`. */
function storedResponse(body: string): RunAccepted {
  return { notScored: [], ...(JSON.parse(body) as Omit<RunAccepted, 'notScored'>) };
}

function conflict(runId: string): ApiError {
  return new ApiError('run-id-conflict', `Run "${runId}" was already submitted with different content.`);
}

function rejection(reason: string): ApiError {
  return new ApiError('evidence-rejected', `The adapter refused the evidence: ${reason}.`);
}

/**
 * Run submission: the adapter derives the result, the run, its result and its leaderboard writes
 * commit together, and a runId answers the same content with the same response forever.
 */
export class RunSubmissions {
  readonly #writer: CommitWriter;
  readonly #db: GameDb;
  readonly #statements: RunStatements;
  readonly #clock: Clock;
  readonly #scores: ScoreRecorder;
  readonly #adapterTypes: ReadonlyMap<string, AdapterType>;
  readonly #responseWaitMs: number;
  readonly #onRecorded: (run: { gameId: string; adapterId: string; status: RunStatus }) => void;
  /** Submissions of this process not yet answerable from the store, by run key. */
  readonly #inFlight = new Map<string, Promise<unknown>>();
  readonly #storeResponses: ReturnType<typeof responsesStore>;
  /** Responses waiting for the write queued for them (it takes every one added before it runs). */
  #pendingResponses: { responses: Array<{ id: number; body: string }>; stored: Promise<unknown> } | undefined;

  constructor(deps: {
    db: GameDb;
    dialect: Dialect;
    writer: CommitWriter;
    clock: Clock;
    scores: ScoreRecorder;
    adapterTypes: ReadonlyMap<string, AdapterType>;
    /** How long a resubmission waits for the first response to be stored; default 2 s. */
    responseWaitMs?: number;
    /** Called once per newly recorded run, after its commit. */
    onRecorded?: (run: { gameId: string; adapterId: string; status: RunStatus }) => void;
  }) {
    this.#db = deps.db;
    this.#statements = new RunStatements(deps.db);
    this.#storeResponses = responsesStore(this.#statements, deps.dialect);
    this.#writer = deps.writer;
    this.#clock = deps.clock;
    this.#scores = deps.scores;
    this.#adapterTypes = deps.adapterTypes;
    this.#onRecorded = deps.onRecorded ?? (() => undefined);
    this.#responseWaitMs = deps.responseWaitMs ?? defaultResponseWaitMs;
  }

  /**
   * Judges and records a run; the accepted body, or ApiError 404/400/409/422. Chained rather than
   * `async` on the way of every run: each promise an `async` function and its `await`s add is
   * also a run through the async hooks on Node.js 20 while a traced request is in flight.
   */
  submit(submission: Submission): Promise<RunAccepted> {
    let checked: CheckedSubmission;
    try {
      checked = this.#checked(submission);
    } catch (error) {
      return Promise.reject(error);
    }
    const { key, type, options, content } = checked;
    const runKey = runKeyOf(key);
    const earlier = this.#inFlight.get(runKey);
    // A duplicate racing one this process is still handling: answer from what that one stored,
    // or, when it failed before storing anything, judge it afresh.
    if (earlier) return this.#afterEarlier(earlier, submission, key, content);
    const attempt = this.#judgeAndRecord(submission, key, type, options, content);
    // Settles (never rejects) once the outcome is stored or the attempt failed.
    const forget = () => {
      this.#inFlight.delete(runKey);
    };
    this.#inFlight.set(runKey, attempt.then((outcome) => outcome.stored).then(forget, forget));
    return attempt.then((outcome) => {
      if (outcome.kind === 'accepted') return outcome.body;
      if (outcome.kind === 'rejected') throw rejection(outcome.reason);
      return this.#answerFromStore(key, submission.adapterId, content.hash);
    });
  }

  /** The submission's adapter (404 when the game has none by that id, or it is switched off), key and content. */
  #checked(submission: Submission): CheckedSubmission {
    const { game, adapterId } = submission;
    const binding = Object.hasOwn(game.adapters, adapterId) ? game.adapters[adapterId] : undefined;
    const type = binding ? this.#adapterTypes.get(binding.type) : undefined;
    if (!binding || !type) throw new ApiError('adapter-not-found', `Game "${game.id}" has no adapter "${adapterId}".`);
    // Switched off in the manifest: no new runs, as if the adapter were not there (its boards stay).
    if (binding.enabled === false) throw new ApiError('adapter-not-found', `Adapter "${adapterId}" of game "${game.id}" is switched off.`);
    assertPayloadDepth(submission.payload);
    const key: RunKey = { gameId: game.id, playerId: submission.player.id, runId: submission.runId };
    return { key, type, options: binding.options ?? {}, content: runContent(adapterId, submission.payload) };
  }

  async #afterEarlier(earlier: Promise<unknown>, submission: Submission, key: RunKey, content: RunContent): Promise<RunAccepted> {
    await earlier;
    const known = await this.#statements.findOutcome(this.#db, key);
    if (!known) return this.submit(submission);
    return this.#answerFromStore(key, submission.adapterId, content.hash, known);
  }

  #judgeAndRecord(
    submission: Submission,
    key: RunKey,
    type: AdapterType,
    options: unknown,
    content: RunContent,
  ): Promise<
    | { kind: 'accepted'; body: RunAccepted; stored: Promise<unknown> }
    | { kind: 'rejected'; reason: string; stored: Promise<unknown> }
    | { kind: 'exists'; stored: Promise<unknown> }
  > {
    const { game, adapterId, payload, player } = submission;
    try {
      assertPayloadShape(type, payload);
    } catch (error) {
      return this.#refusedShape(key, error);
    }
    let derivation: Derivation;
    try {
      derivation = inSpan(`derive ${type.id}`, { 'game.id': game.id, 'game.adapter.id': adapterId, 'game.adapter.type': type.id, 'game.adapter.version': type.version }, () => type.derive(payload, { options }));
    } catch (error) {
      return Promise.reject(error);
    }
    const status = statusOf(derivation);
    return this.#writer.write<WriteOutcome>((trx) => runFlow(this.#record(trx, submission, key, type, content, derivation)), player.id).then((written) => {
      if (written.kind === 'exists') return { kind: 'exists', stored: Promise.resolve() };
      this.#onRecorded({ gameId: game.id, adapterId, status });
      if (!derivation.ok) return { kind: 'rejected', reason: derivation.reason, stored: Promise.resolve() };
      const { refused, publish } = written.recorded!;
      const accepted = (leaderboards: BoardStanding[]) => {
        const body: RunAccepted = { runId: key.runId, adapterId, status: 'accepted', result: derivation.result, leaderboards, notScored: [...refused] };
        return { kind: 'accepted' as const, body, stored: this.#storeResponse(written.id, JSON.stringify(body)) };
      };
      const published = publish();
      return published instanceof Promise ? published.then(accepted) : accepted(published);
    });
  }

  /** Evidence of the wrong shape: its error, unless the runId is taken (409 whatever the new content's shape). */
  async #refusedShape(key: RunKey, error: unknown): Promise<never> {
    if (await this.#statements.findOutcome(this.#db, key)) throw conflict(key.runId);
    throw error;
  }

  /**
   * The run's row and its leaderboard entries, in the group commit's transaction: a flow, so on
   * SQLite (whose statements answer at once there) the whole write runs without a promise.
   */
  *#record(trx: GameDb, submission: Submission, key: RunKey, type: AdapterType, content: RunContent, derivation: Derivation): Flow<WriteOutcome> {
    const { game, adapterId, player } = submission;
    // Read inside the transaction: a run queued behind others is recorded (and placed in an
    // event window) at the time it is written, so none lands in a window that has ended.
    const now = this.#clock.now();
    const id = yield* awaited(
      this.#statements.insertIfAbsent(trx, {
        ...key,
        adapterId,
        adapterType: type.id,
        adapterVersion: type.version,
        contentHash: content.hash,
        status: statusOf(derivation),
        payload: content.canonicalPayload,
        result: derivation.ok ? derivation.result : null,
        hintMismatches: derivation.ok ? derivation.hintMismatches : [],
        rejectionReason: derivation.ok ? null : derivation.reason,
        responseStatus: derivation.ok ? 200 : 422,
        createdAt: now,
      }),
    );
    if (id === undefined) return { kind: 'exists' };
    const recorded = derivation.ok
      ? yield* awaited(
          this.#scores.recordScores(trx, {
            game,
            playerId: player.id,
            displayName: player.displayName,
            adapterId,
            result: derivation.result,
            achievedAt: now,
          }),
        )
      : undefined;
    return { kind: 'inserted', id, recorded };
  }

  /**
   * Stores an accepted run's response, together with the others that arrive before the write
   * queued for them runs: one write (one statement on PostgreSQL) for many runs. Resolves once
   * that write has committed.
   */
  #storeResponse(id: number, body: string): Promise<unknown> {
    let pending = this.#pendingResponses;
    if (!pending) {
      const responses: Array<{ id: number; body: string }> = [];
      // Queued at once (a drain waits for it); whatever joins before it runs is written with it.
      const stored = this.#writer.write((trx) => {
        if (this.#pendingResponses?.responses === responses) this.#pendingResponses = undefined;
        return this.#storeResponses(trx, responses);
      }, responsesLane);
      pending = { responses, stored };
      this.#pendingResponses = pending;
    }
    pending.responses.push({ id, body });
    return pending.stored;
  }

  /**
   * The answer for a runId already recorded: the original response, or 409 for other content.
   * `known`: the stored outcome when the caller has just read it.
   */
  async #answerFromStore(key: RunKey, adapterId: string, hash: string, known?: StoredOutcome): Promise<RunAccepted> {
    // Real elapsed time, not the app's clock: this bounds a wait, it is not a moment of the game.
    const deadline = performance.now() + this.#responseWaitMs;
    for (let read = known; ; read = undefined) {
      const stored = read ?? (await this.#statements.findOutcome(this.#db, key));
      if (!stored) throw new Error(`run ${key.runId} was recorded but cannot be read back`);
      if (stored.contentHash !== hash) throw conflict(key.runId);
      if (stored.status === 'rejected') throw rejection(stored.rejectionReason ?? 'no reason recorded');
      if (stored.responseBody !== null) return storedResponse(stored.responseBody);
      if (performance.now() >= deadline) return this.#answerWithoutPlacements(key, adapterId, stored);
      await new Promise((resolve) => setTimeout(resolve, responsePollMs));
    }
  }

  /**
   * The response of an accepted run whose first response was never stored (the process stopped
   * between commit and that write). The result is the stored one; the placements of that moment
   * are gone, so none are claimed. Stored first-writer-wins so every later answer is this one.
   */
  async #answerWithoutPlacements(key: RunKey, adapterId: string, stored: StoredOutcome): Promise<RunAccepted> {
    const body: RunAccepted = { runId: key.runId, adapterId, status: 'accepted', result: stored.result ?? {}, leaderboards: [], notScored: [] };
    await this.#writer.write((trx) => storeMissingRunResponse(trx, stored.id, JSON.stringify(body)), key.playerId);
    const settled = await this.#statements.findOutcome(this.#db, key);
    return settled?.responseBody ? storedResponse(settled.responseBody) : body;
  }
}

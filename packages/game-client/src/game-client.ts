import type {
  AroundMe,
  AroundMeQuery,
  LeaderboardPage,
  LeaderboardPageQuery,
  MyRank,
  MyRankQuery,
  PlayerDeleted,
  PlayerSummary,
  RunPayload,
} from './api-types.js';
import type { GameClientEvents } from './client-events.js';
import { RunNotQueuedError } from './errors.js';
import { TypedEmitter } from './event-emitter.js';
import { gamePath, isSuccess, serviceErrorOf, type FetchFunction, type JsonRequest, type TransportOptions } from './http-transport.js';
import { defaultBackoff, type BackoffOptions } from './retry-policy.js';
import { RunFlusher, type FlushReport } from './run-flusher.js';
import { createRunId } from './run-id.js';
import { RunQueue, type QueuedRun } from './run-queue.js';
import { traceparentFor, type TraceContextOption } from './trace-context.js';
import { SessionManager, type AuthorizationCodeSource, type SignInResult } from './session-manager.js';
import type { ClientStorage } from './storage/client-storage.js';
import { createMemoryStorage } from './storage/memory-storage.js';
import { createWebStorage, type WebStorageLike } from './storage/web-storage.js';

export interface GameClientOptions {
  /** The game service's base URL, e.g. `https://games.example.com`. */
  baseUrl: string;
  gameId: string;
  /**
   * Where tokens and queued runs are kept. Default: localStorage in a browser, memory elsewhere
   * (Node games should pass `createFileStorage` from `@playstack/game-client/node`).
   */
  storage?: ClientStorage;
  fetch?: FetchFunction;
  /** Clock in epoch ms; tests move it. */
  now?: () => number;
  /** Source of backoff jitter in [0, 1). */
  random?: () => number;
  /** Queued runs older than this are discarded unsent (`run-expired`). Default 7 days. */
  maxRunAgeMs?: number;
  /** Queued runs per game; `submitRun` refuses more. Default 1000. */
  maxQueuedRuns?: number;
  /** Serialized submission size limit, matching the service's default body limit. Default 256 KiB. */
  maxRunBytes?: number;
  /** A request without a complete answer within this time counts as a network error. Default 15 s. */
  requestTimeoutMs?: number;
  /** Refresh the access token this long before it expires. Default 60 s. */
  refreshMarginMs?: number;
  backoff?: Partial<BackoffOptions>;
  /**
   * W3C `traceparent` on each call, so the service's spans of it form one trace the device
   * started: true (the default) starts a new trace per call; false sends none; a function
   * answers the `traceparent` of the game's own context for the call (undefined: none).
   */
  traceContext?: TraceContextOption;
  /**
   * Share of the traces this library starts marked sampled (0 to 1, default 1). A service that
   * samples parent-based (the OpenTelemetry default) follows the device's choice: set this to
   * the service's ratio to keep the same share of client calls.
   */
  traceSampleRate?: number;
  /** Default: `navigator.onLine` where it exists, otherwise always online. */
  isOnline?: () => boolean;
}

export const defaultMaxRunAgeMs = 7 * 24 * 60 * 60_000;
export const defaultMaxQueuedRuns = 1000;
export const defaultMaxRunBytes = 256 * 1024;
export const defaultRequestTimeoutMs = 15_000;
export const defaultRefreshMarginMs = 60_000;
const maxAdapterIdLength = 80;

/** A queued run as the game sees it (the payload stays in storage). */
export interface PendingRun {
  runId: string;
  adapterId: string;
  queuedAt: number;
  attempts: number;
  /** False while the run waits for its owner to sign in again. */
  ownedBySignedInPlayer: boolean;
}

interface BrowserGlobals {
  navigator?: { onLine?: boolean };
  localStorage?: WebStorageLike;
  addEventListener?: (type: string, listener: () => void) => void;
  removeEventListener?: (type: string, listener: () => void) => void;
}

/**
 * The library a game embeds: player sessions, an offline-first queue of runs, and leaderboard
 * reads. Runs are stored before any network call and sent when online and signed in.
 */
export class GameClient {
  readonly gameId: string;
  readonly #events = new TypedEmitter<GameClientEvents>();
  readonly #sessions: SessionManager;
  readonly #queue: RunQueue;
  readonly #flusher: RunFlusher;
  readonly #transport: TransportOptions;
  readonly #maxQueuedRuns: number;
  readonly #maxRunBytes: number;
  readonly #onOnline = () => this.#flusher.resume();

  constructor(options: GameClientOptions) {
    const browser = globalThis as BrowserGlobals;
    this.gameId = options.gameId;
    const storage = options.storage ?? (browser.localStorage ? createWebStorage(browser.localStorage) : createMemoryStorage());
    // Without an atomic update, clients sharing the store would silently lose queued runs.
    if (typeof storage.update !== 'function') throw new TypeError('GameClientOptions.storage must implement update(key, change) (see ClientStorage)');
    const now = options.now ?? (() => Date.now());
    this.#transport = {
      baseUrl: options.baseUrl,
      fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      requestTimeoutMs: options.requestTimeoutMs ?? defaultRequestTimeoutMs,
      now,
      traceparent: (call) => traceparentFor(options.traceContext ?? true, options.traceSampleRate ?? 1, Math.random, call),
    };
    this.#maxQueuedRuns = options.maxQueuedRuns ?? defaultMaxQueuedRuns;
    this.#maxRunBytes = options.maxRunBytes ?? defaultMaxRunBytes;
    this.#sessions = new SessionManager({
      storage,
      gameId: options.gameId,
      transport: this.#transport,
      refreshMarginMs: options.refreshMarginMs ?? defaultRefreshMarginMs,
      events: this.#events,
    });
    this.#queue = new RunQueue(storage);
    this.#flusher = new RunFlusher({
      gameId: options.gameId,
      queue: this.#queue,
      sessions: this.#sessions,
      events: this.#events,
      now,
      random: options.random ?? Math.random,
      backoff: { ...defaultBackoff, ...options.backoff },
      maxRunAgeMs: options.maxRunAgeMs ?? defaultMaxRunAgeMs,
      isOnline: options.isOnline ?? (() => browser.navigator?.onLine ?? true),
    });
  }

  /** Subscribes to an event; returns the function that unsubscribes. */
  on<Name extends keyof GameClientEvents>(name: Name, listener: (event: GameClientEvents[Name]) => void): () => void {
    return this.#events.on(name, listener);
  }

  /** Sends queued runs in the background from now on: when due, on sign-in, and when the browser comes back online. */
  start(): void {
    (globalThis as BrowserGlobals).addEventListener?.('online', this.#onOnline);
    this.#flusher.start();
  }

  /** Stops background sending; waits for a send in progress. Queued runs stay stored. */
  async stop(): Promise<void> {
    (globalThis as BrowserGlobals).removeEventListener?.('online', this.#onOnline);
    await this.#flusher.stop();
  }

  /**
   * Signs in with a platform server auth code (or a function that obtains one). Cancelled or
   * failed sign-in leaves the stored session and queue exactly as they were.
   */
  async signIn(code: AuthorizationCodeSource): Promise<SignInResult> {
    const result = await this.#sessions.signIn(code);
    if (result.status === 'signed-in') this.#flusher.resume();
    return result;
  }

  /** Ends the session (locally at once, on the service when reachable). Queued runs stay for the player's next sign-in. */
  logout(): Promise<{ revoked: boolean }> {
    return this.#sessions.logout();
  }

  /** The signed-in player, or undefined. */
  async player(): Promise<PlayerSummary | undefined> {
    return (await this.#sessions.current())?.player;
  }

  /**
   * Queues a run and returns its id. The run is stored before any network call, so it survives
   * a crash or an offline session; it is sent by `flush()` or background sending.
   */
  async submitRun(adapterId: string, payload: RunPayload): Promise<{ runId: string }> {
    if (typeof adapterId !== 'string' || adapterId.length < 1 || adapterId.length > maxAdapterIdLength) {
      throw new RunNotQueuedError(`adapterId must be 1 to ${maxAdapterIdLength} characters`);
    }
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
      throw new RunNotQueuedError('payload must be a JSON object');
    }
    const runId = createRunId();
    // A JSON round trip stores exactly what will be sent and detaches it from the game's objects.
    const serialized = JSON.stringify({ runId, payload });
    if (new TextEncoder().encode(serialized).length > this.#maxRunBytes) {
      throw new RunNotQueuedError(`the run is larger than ${this.#maxRunBytes} bytes`);
    }
    const session = await this.#sessions.current();
    const run: QueuedRun = {
      runId,
      gameId: this.gameId,
      adapterId,
      playerId: session?.player.id ?? null,
      payload: (JSON.parse(serialized) as { payload: RunPayload }).payload,
      queuedAt: this.#transport.now(),
      attempts: 0,
      notBefore: 0,
    };
    await this.#queue.update((runs) => {
      if (runs.filter((queued) => queued.gameId === this.gameId).length >= this.#maxQueuedRuns) {
        throw new RunNotQueuedError(`the run queue is full (${this.#maxQueuedRuns} runs)`);
      }
      return { runs: [...runs, run], result: undefined };
    });
    this.#events.emit('run-queued', { runId, adapterId });
    this.#flusher.kick();
    return { runId };
  }

  /** Sends every due run of the signed-in player now (and discards expired runs). */
  flush(): Promise<FlushReport> {
    return this.#flusher.flush();
  }

  /** The runs of this game still waiting to be sent. */
  async pendingRuns(): Promise<PendingRun[]> {
    const playerId = (await this.#sessions.current())?.player.id;
    return (await this.#queue.list())
      .filter((run) => run.gameId === this.gameId)
      .map((run) => ({
        runId: run.runId,
        adapterId: run.adapterId,
        queuedAt: run.queuedAt,
        attempts: run.attempts,
        ownedBySignedInPlayer: playerId !== undefined && (run.playerId === playerId || run.playerId === null),
      }));
  }

  /**
   * A page of a leaderboard; pass the previous page's `nextCursor` as `cursor` for the next one.
   * With `players` (up to 100 ids: the game's friend list), a friends' board: those players and
   * the signed-in one, ranked among themselves.
   */
  leaderboard(boardId: string, query: LeaderboardPageQuery = {}): Promise<LeaderboardPage> {
    return this.#readBoard<LeaderboardPage>(boardId, '', query);
  }

  /** The signed-in player's rank (and neighbours with `radius`); with `players`, on that friends' board. */
  myRank(boardId: string, query: MyRankQuery = {}): Promise<MyRank> {
    return this.#readBoard<MyRank>(boardId, '/me', query);
  }

  /** The entries around the signed-in player's rank; with `players`, on that friends' board. */
  aroundMe(boardId: string, query: AroundMeQuery = {}): Promise<AroundMe> {
    return this.#readBoard<AroundMe>(boardId, '/around-me', query);
  }

  /** A board read; a friends' board goes as POST with the players in the body, whatever their number. */
  #readBoard<Body>(boardId: string, suffix: string, read: LeaderboardPageQuery | MyRankQuery | AroundMeQuery): Promise<Body> {
    const { players, ...query } = read as { players?: readonly string[] } & Record<string, string | number | undefined>;
    const path = this.#boardPath(boardId, suffix);
    if (players === undefined) return this.#read<Body>({ method: 'GET', path, query });
    return this.#read<Body>({ method: 'POST', path, query, body: { players } });
  }

  /**
   * Deletes the player's data on the service, then the player's queued runs (and runs nobody
   * has claimed yet, which would otherwise go to this player) and tokens on this device.
   */
  async deletePlayer(): Promise<PlayerDeleted> {
    const session = await this.#sessions.current();
    const deleted = await this.#read<PlayerDeleted>({ method: 'DELETE', path: gamePath(this.gameId, '/player') });
    const playerId = session?.player.id;
    await this.#queue.update((runs) => {
      const kept = runs.filter((run) => run.gameId !== this.gameId || (run.playerId !== playerId && run.playerId !== null));
      return { runs: kept.length === runs.length ? runs : kept, result: undefined };
    });
    await this.#sessions.end('player-deleted');
    return deleted;
  }

  async #read<Body>(request: Omit<JsonRequest, 'accessToken'>): Promise<Body> {
    const response = await this.#sessions.authorized(request);
    if (!isSuccess(response)) throw serviceErrorOf(response);
    return response.body as Body;
  }

  #boardPath(boardId: string, suffix: string): string {
    return gamePath(this.gameId, `/leaderboards/${encodeURIComponent(boardId)}${suffix}`);
  }
}

/** Creates a client for one game. */
export function createGameClient(options: GameClientOptions): GameClient {
  return new GameClient(options);
}

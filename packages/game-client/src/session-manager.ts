import type { PlayerSummary, SessionResponse } from './api-types.js';
import type { GameClientEvents, SignedOutReason } from './client-events.js';
import { GameServiceError, NetworkError, SignedOutError } from './errors.js';
import type { TypedEmitter } from './event-emitter.js';
import { gamePath, isSuccess, sendJson, serviceErrorOf, type JsonRequest, type JsonResponse, type TransportOptions } from './http-transport.js';
import { isRetryableStatus } from './retry-policy.js';
import type { ClientStorage } from './storage/client-storage.js';
import { inTurn } from './storage/in-turn.js';
import { withWebLock } from './storage/web-locks.js';

/** What the library keeps of a session. Expiry instants are epoch milliseconds of the client's clock. */
export interface StoredSession {
  format: 1;
  gameId: string;
  player: PlayerSummary;
  accessToken: string;
  accessTokenExpiresAt: number;
  /** When to renew ahead of expiry: `refreshMarginMs` early, or halfway for short-lived tokens. */
  accessTokenRefreshAt: number;
  refreshToken: string;
  refreshTokenExpiresAt: number;
}

/**
 * The platform's server auth code, or a function that obtains it (showing the platform's sign-in
 * UI). The function may reject or resolve to nothing when the player cancels.
 */
export type AuthorizationCodeSource = string | (() => Promise<string | null | undefined>);

export type SignInResult =
  | { status: 'signed-in'; player: PlayerSummary }
  /** The player cancelled the platform sign-in (or no code was produced). */
  | { status: 'cancelled'; error?: unknown }
  /** The service could not be reached or is overloaded; try again later. */
  | { status: 'unavailable'; error: NetworkError | GameServiceError }
  /** The service refused the code (401 invalid-grant, unknown game, ...). */
  | { status: 'rejected'; error: GameServiceError };

export interface SessionManagerOptions {
  storage: ClientStorage;
  gameId: string;
  transport: TransportOptions;
  /** Refresh this long before the access token expires, so calls do not race its expiry. */
  refreshMarginMs: number;
  events: TypedEmitter<GameClientEvents>;
}

export function sessionStorageKey(gameId: string): string {
  return `session:${gameId}`;
}

// Refreshes of one game's session are serialised across every client in this realm (whatever
// storage object each uses: two GameClients, a restarted client on a new file storage object)
// and, through Web Locks, across tabs. Each refresh first re-reads the stored session, so no two
// clients sharing a storage present the same refresh token: the service would take the second
// presentation for reuse and revoke the player's session family.
const refreshChains = new Map<string, Promise<unknown>>();

function serializeRefresh<T>(gameId: string, task: () => Promise<T>): Promise<T> {
  return inTurn(refreshChains, gameId, () => withWebLock(`playstack-game-client:session-refresh:${gameId}`, task));
}

/** What the storage holds under the session key. */
type StoredSessionRead =
  | { kind: 'none' }
  /** A session of another game, or of a format this version does not know: not ours. */
  | { kind: 'foreign' }
  /** Not JSON, or not a session: a damaged value. */
  | { kind: 'unreadable' }
  | { kind: 'session'; session: StoredSession };

function parseStoredSession(text: string | undefined, gameId: string): StoredSessionRead {
  if (text === undefined) return { kind: 'none' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { kind: 'unreadable' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { kind: 'unreadable' };
  const candidate = parsed as Partial<StoredSession>;
  if (candidate.format !== 1 || candidate.gameId !== gameId) return typeof candidate.format === 'number' && typeof candidate.gameId === 'string' ? { kind: 'foreign' } : { kind: 'unreadable' };
  const wellFormed =
    typeof candidate.accessToken === 'string' &&
    typeof candidate.refreshToken === 'string' &&
    typeof candidate.accessTokenExpiresAt === 'number' &&
    typeof candidate.accessTokenRefreshAt === 'number' &&
    typeof candidate.refreshTokenExpiresAt === 'number' &&
    typeof candidate.player === 'object' &&
    candidate.player !== null &&
    typeof candidate.player.id === 'string';
  return wellFormed ? { kind: 'session', session: candidate as StoredSession } : { kind: 'unreadable' };
}

function storedRefreshToken(read: StoredSessionRead): string | undefined {
  return read.kind === 'session' ? read.session.refreshToken : undefined;
}

/**
 * Holds the player's tokens: signs in, refreshes before expiry and on 401 (one refresh at a
 * time, shared by every call waiting for it), and logs out. A failed or cancelled sign-in
 * changes nothing that is stored.
 */
export class SessionManager {
  readonly #options: SessionManagerOptions;
  readonly #key: string;
  #session: StoredSession | undefined;
  #loaded: Promise<void> | undefined;
  #refreshing: Promise<StoredSession> | undefined;
  // Bumped whenever the session is replaced or ended, so a refresh that was in flight across a
  // logout or a new sign-in cannot bring the old session back.
  #generation = 0;

  constructor(options: SessionManagerOptions) {
    this.#options = options;
    this.#key = sessionStorageKey(options.gameId);
  }

  /** The stored session, or undefined when no player is signed in. */
  async current(): Promise<StoredSession | undefined> {
    // A failed read (an I/O error) is not remembered: the next call reads again.
    this.#loaded ??= this.#load().catch((error: unknown) => {
      this.#loaded = undefined;
      throw error;
    });
    await this.#loaded;
    return this.#session;
  }

  async signIn(source: AuthorizationCodeSource): Promise<SignInResult> {
    let code: string | null | undefined;
    try {
      code = typeof source === 'function' ? await source() : source;
    } catch (error) {
      return { status: 'cancelled', error };
    }
    if (!code) return { status: 'cancelled' };
    await this.current();

    let response: JsonResponse;
    try {
      response = await sendJson(this.#options.transport, { method: 'POST', path: this.#path('/auth/exchange'), body: { authorizationCode: code } });
    } catch (error) {
      if (error instanceof NetworkError) return { status: 'unavailable', error };
      throw error;
    }
    if (!isSuccess(response)) {
      const error = serviceErrorOf(response);
      return isRetryableStatus(response.status) ? { status: 'unavailable', error } : { status: 'rejected', error };
    }
    const session = this.#fromResponse(response.body as SessionResponse);
    this.#generation += 1;
    await this.#save(session);
    this.#options.events.emit('signed-in', { player: session.player });
    return { status: 'signed-in', player: session.player };
  }

  /**
   * Ends the session here at once, then asks the service to revoke the token family. Offline,
   * the local session still ends; `revoked` says whether the service confirmed.
   */
  async logout(): Promise<{ revoked: boolean }> {
    await this.current();
    // Another client sharing the storage may have rotated the tokens since we read them: revoke
    // with the newest refresh token, not a spent one.
    const stored = await this.#readStored();
    const session = stored.kind === 'session' ? stored.session : this.#session;
    if (!session) return { revoked: false };
    await this.end('logout');
    try {
      const response = await sendJson(this.#options.transport, { method: 'POST', path: this.#path('/auth/logout'), body: { refreshToken: session.refreshToken } });
      return { revoked: isSuccess(response) };
    } catch (error) {
      if (error instanceof NetworkError) return { revoked: false };
      throw error;
    }
  }

  /** Forgets the tokens locally. */
  async end(reason: SignedOutReason): Promise<void> {
    await this.current();
    const hadSession = this.#forgetLocally();
    await this.#options.storage.delete(this.#key);
    if (hadSession) this.#options.events.emit('signed-out', { reason });
  }

  /**
   * Sends a request with the access token, refreshing first when it is about to expire, and on
   * a 401 refreshing once and retrying once. With `playerId`, refuses to send under any other
   * player's session.
   */
  async authorized(request: Omit<JsonRequest, 'accessToken'>, playerId?: string): Promise<JsonResponse> {
    const session = await this.#usableSession(playerId);
    const first = await sendJson(this.#options.transport, { ...request, accessToken: session.accessToken });
    if (first.status !== 401) return first;
    const renewed = await this.#refresh(session.accessToken);
    this.#requirePlayer(renewed, playerId);
    return sendJson(this.#options.transport, { ...request, accessToken: renewed.accessToken });
  }

  async #usableSession(playerId: string | undefined): Promise<StoredSession> {
    const session = await this.current();
    if (!session) throw new SignedOutError();
    this.#requirePlayer(session, playerId);
    const now = this.#options.transport.now();
    if (now < session.accessTokenRefreshAt) return session;
    try {
      const renewed = await this.#refresh(session.accessToken);
      this.#requirePlayer(renewed, playerId);
      return renewed;
    } catch (error) {
      // Offline or service trouble: a token that has not quite expired is still worth trying.
      if (!(error instanceof SignedOutError) && session.accessTokenExpiresAt > now) return session;
      throw error;
    }
  }

  #requirePlayer(session: StoredSession, playerId: string | undefined): void {
    if (playerId !== undefined && session.player.id !== playerId) {
      throw new SignedOutError(`player ${playerId} is not the one signed in`);
    }
  }

  /**
   * Renews the session whose access token was `staleAccessToken`. Concurrent callers share one
   * refresh; a caller whose stale token was already replaced gets the new session without
   * another round trip, so N calls failing together cause exactly one refresh.
   */
  #refresh(staleAccessToken: string): Promise<StoredSession> {
    if (this.#refreshing) return this.#refreshing;
    const session = this.#session;
    if (!session) return Promise.reject(new SignedOutError());
    if (session.accessToken !== staleAccessToken) return Promise.resolve(session);
    const refreshing = serializeRefresh(this.#options.gameId, () => this.#performRefresh(session)).finally(() => {
      this.#refreshing = undefined;
    });
    this.#refreshing = refreshing;
    return refreshing;
  }

  /**
   * Refreshes `cached`, unless the stored session shows that another client sharing the storage
   * (another tab, another GameClient) already did, or ended it: then that is adopted instead,
   * since presenting our spent refresh token would look like reuse to the service and revoke
   * the player's whole session family.
   */
  async #performRefresh(cached: StoredSession): Promise<StoredSession> {
    const generation = this.#generation;
    const stored = await this.#readStored();
    this.#requireGeneration(generation);
    if (storedRefreshToken(stored) !== cached.refreshToken) return this.#adopt(stored);
    if (cached.refreshTokenExpiresAt <= this.#options.transport.now()) {
      await this.#endIfStored(cached.refreshToken);
      throw new SignedOutError('the session expired; sign in again');
    }
    const response = await sendJson(this.#options.transport, { method: 'POST', path: this.#path('/auth/refresh'), body: { refreshToken: cached.refreshToken } });
    this.#requireGeneration(generation);
    if (response.status === 401) {
      // Refused: unless another client (another process) rotated it meanwhile, the session is over.
      const latest = await this.#readStored();
      if (storedRefreshToken(latest) !== cached.refreshToken && latest.kind === 'session') return this.#adopt(latest);
      await this.#endIfStored(cached.refreshToken);
      throw new SignedOutError('the service ended the session; sign in again');
    }
    if (!isSuccess(response)) throw serviceErrorOf(response);
    const renewed = this.#fromResponse(response.body as SessionResponse);
    // Stored only over the session it renews: a logout or a new sign-in by another client
    // sharing the storage meanwhile is not undone.
    const { gameId } = this.#options;
    const saved = await this.#options.storage.update(this.#key, (text) => {
      const current = parseStoredSession(text, gameId);
      if (storedRefreshToken(current) !== cached.refreshToken) return { value: text, result: current };
      return { value: JSON.stringify(renewed), result: undefined };
    });
    this.#requireGeneration(generation);
    if (saved !== undefined) return this.#adopt(saved);
    this.#session = renewed;
    return renewed;
  }

  /** Takes over what another client sharing the storage left there: a newer session, or none. */
  #adopt(stored: StoredSessionRead): StoredSession {
    const previous = this.#session;
    if (stored.kind !== 'session') {
      if (this.#forgetLocally()) this.#options.events.emit('signed-out', { reason: stored.kind === 'unreadable' ? 'session-unreadable' : 'session-ended' });
      throw new SignedOutError('the session was ended by another client sharing this storage; sign in again');
    }
    this.#session = stored.session;
    if (previous?.player.id !== stored.session.player.id) {
      this.#generation += 1;
      this.#options.events.emit('signed-in', { player: stored.session.player });
    }
    return stored.session;
  }

  /**
   * Ends the session locally after the service refused `refreshToken`, removing it from storage
   * only if it is still the stored one: another client's newer session is left alone.
   */
  async #endIfStored(refreshToken: string): Promise<void> {
    const hadSession = this.#forgetLocally();
    const { gameId } = this.#options;
    await this.#options.storage.update(this.#key, (text) => ({
      value: storedRefreshToken(parseStoredSession(text, gameId)) === refreshToken ? undefined : text,
      result: undefined,
    }));
    if (hadSession) this.#options.events.emit('signed-out', { reason: 'session-ended' });
  }

  /**
   * Drops the session held here and bumps the generation, so that a refresh in flight cannot
   * bring it back. Says whether there was a session (and so a `signed-out` event is due).
   */
  #forgetLocally(): boolean {
    this.#generation += 1;
    const hadSession = this.#session !== undefined;
    this.#session = undefined;
    return hadSession;
  }

  /** Throws when the session was replaced or ended since `generation` was read. */
  #requireGeneration(generation: number): void {
    if (generation !== this.#generation) throw new SignedOutError('the session changed while it was being refreshed');
  }

  async #readStored(): Promise<StoredSessionRead> {
    return parseStoredSession(await this.#options.storage.get(this.#key), this.#options.gameId);
  }

  async #load(): Promise<void> {
    const stored = await this.#readStored();
    if (stored.kind === 'session') this.#session = stored.session;
    // A damaged value is no session: the player is signed out (and can sign in again, which
    // replaces it). Nothing else stored, the run queue least of all, is touched.
    else if (stored.kind === 'unreadable') this.#options.events.emit('signed-out', { reason: 'session-unreadable' });
  }

  async #save(session: StoredSession): Promise<void> {
    await this.#options.storage.set(this.#key, JSON.stringify(session));
    this.#session = session;
  }

  #fromResponse(body: SessionResponse): StoredSession {
    const now = this.#options.transport.now();
    const lifetimeMs = body.expiresIn * 1000;
    return {
      format: 1,
      gameId: this.#options.gameId,
      player: { id: body.player.id, displayName: body.player.displayName },
      accessToken: body.accessToken,
      accessTokenExpiresAt: now + lifetimeMs,
      // A margin as long as the lifetime would refresh before every call.
      accessTokenRefreshAt: now + Math.max(lifetimeMs - this.#options.refreshMarginMs, lifetimeMs / 2),
      refreshToken: body.refreshToken,
      refreshTokenExpiresAt: now + body.refreshExpiresIn * 1000,
    };
  }

  #path(suffix: string): string {
    return gamePath(this.#options.gameId, suffix);
  }
}

import type { PlayerSummary, SessionResponse } from './api-types.js';
import type { GameClientEvents, SignedOutReason } from './client-events.js';
import { GameServiceError, NetworkError, SignedOutError } from './errors.js';
import type { TypedEmitter } from './event-emitter.js';
import { isSuccess, sendJson, serviceErrorOf, type JsonRequest, type JsonResponse, type TransportOptions } from './http-transport.js';
import { isRetryableStatus } from './retry-policy.js';
import type { ClientStorage } from './storage/client-storage.js';

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
    this.#loaded ??= this.#load();
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
    const session = await this.current();
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
    this.#generation += 1;
    const hadSession = this.#session !== undefined;
    this.#session = undefined;
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
    const refreshing = this.#performRefresh(session).finally(() => {
      this.#refreshing = undefined;
    });
    this.#refreshing = refreshing;
    return refreshing;
  }

  async #performRefresh(session: StoredSession): Promise<StoredSession> {
    const generation = this.#generation;
    if (session.refreshTokenExpiresAt <= this.#options.transport.now()) {
      await this.end('session-ended');
      throw new SignedOutError('the session expired; sign in again');
    }
    const response = await sendJson(this.#options.transport, { method: 'POST', path: this.#path('/auth/refresh'), body: { refreshToken: session.refreshToken } });
    if (generation !== this.#generation) throw new SignedOutError('the session changed while it was being refreshed');
    if (response.status === 401) {
      await this.end('session-ended');
      throw new SignedOutError('the service ended the session; sign in again');
    }
    if (!isSuccess(response)) throw serviceErrorOf(response);
    const renewed = this.#fromResponse(response.body as SessionResponse);
    await this.#save(renewed);
    return renewed;
  }

  async #load(): Promise<void> {
    const text = await this.#options.storage.get(this.#key);
    if (text === undefined) return;
    const parsed = JSON.parse(text) as StoredSession;
    if (parsed.format === 1 && parsed.gameId === this.#options.gameId) this.#session = parsed;
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
    return `/v1/games/${encodeURIComponent(this.#options.gameId)}${suffix}`;
  }
}

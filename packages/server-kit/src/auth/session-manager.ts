import { createHash } from 'node:crypto';
import type { Clock } from '../system/clock.js';
import { hashOpaqueToken, newOpaqueToken, secretsMatch } from './opaque-token.js';

/** A browser session as stored: the id itself is never kept, only its hash. */
export interface SessionRecord {
  idHash: string;
  userId: string;
  createdAt: number;
  lastSeenAt: number;
  /** Ends the session when no request comes before it; moved forward as requests arrive. */
  idleExpiresAt: number;
  /** Ends the session however active it is. */
  absoluteExpiresAt: number;
}

/**
 * Where sessions live: the port the session manager works through. The feature that owns a
 * session table implements it (accounts' `KyselySessionStore` keeps `account_sessions`), so auth
 * itself holds no table.
 */
export interface SessionStore {
  insert(session: SessionRecord): Promise<void>;
  find(idHash: string): Promise<SessionRecord | undefined>;
  touch(idHash: string, lastSeenAt: number, idleExpiresAt: number): Promise<void>;
  delete(idHash: string): Promise<void>;
  /** Ends a user's sessions, optionally keeping one; answers how many ended. */
  deleteForUser(userId: string, keepIdHash?: string): Promise<number>;
  deleteExpired(now: number): Promise<number>;
}

export interface SessionPolicy {
  idleTimeoutMs: number;
  absoluteLifetimeMs: number;
  /**
   * The idle deadline is moved forward at most this often, so an active dashboard does not
   * cause a database write per request. The effective idle timeout is within this much.
   */
  touchIntervalMs: number;
}

/** A session just started: the id goes into the cookie, the CSRF token to the page. */
export interface StartedSession {
  sessionId: string;
  csrfToken: string;
  absoluteExpiresAt: number;
}

/** A live session found from a cookie. */
export interface ActiveSession {
  userId: string;
  idHash: string;
  csrfToken: string;
  createdAt: number;
  absoluteExpiresAt: number;
}

/** Session ids carry 256 bits of entropy (the floor is 128). */
const sessionIdBytes = 32;
const maxSessionIdLength = 128;

/**
 * Browser sessions: random ids stored only as hashes, an idle timeout and an absolute lifetime,
 * a fresh id at every sign-in, and a CSRF token bound to each session.
 */
export class SessionManager {
  readonly #store: SessionStore;
  readonly #clock: Clock;
  readonly #policy: SessionPolicy;

  constructor(store: SessionStore, clock: Clock, policy: SessionPolicy) {
    this.#store = store;
    this.#clock = clock;
    this.#policy = policy;
  }

  /** Starts a new session for a user (always a new id: sign-in never reuses one). */
  async start(userId: string): Promise<StartedSession> {
    const now = this.#clock.now();
    const sessionId = newOpaqueToken(sessionIdBytes);
    const absoluteExpiresAt = now + this.#policy.absoluteLifetimeMs;
    await this.#store.insert({
      idHash: hashOpaqueToken(sessionId),
      userId,
      createdAt: now,
      lastSeenAt: now,
      idleExpiresAt: Math.min(now + this.#policy.idleTimeoutMs, absoluteExpiresAt),
      absoluteExpiresAt,
    });
    return { sessionId, csrfToken: csrfTokenFor(sessionId), absoluteExpiresAt };
  }

  /** The live session a cookie value names; an expired one is deleted and not returned. */
  async resume(sessionId: string): Promise<ActiveSession | undefined> {
    if (sessionId.length === 0 || sessionId.length > maxSessionIdLength) return undefined;
    const idHash = hashOpaqueToken(sessionId);
    const session = await this.#store.find(idHash);
    if (!session) return undefined;
    const now = this.#clock.now();
    if (now >= session.idleExpiresAt || now >= session.absoluteExpiresAt) {
      await this.#store.delete(idHash);
      return undefined;
    }
    if (now - session.lastSeenAt >= this.#policy.touchIntervalMs) {
      await this.#store.touch(idHash, now, Math.min(now + this.#policy.idleTimeoutMs, session.absoluteExpiresAt));
    }
    return {
      userId: session.userId,
      idHash,
      csrfToken: csrfTokenFor(sessionId),
      createdAt: session.createdAt,
      absoluteExpiresAt: session.absoluteExpiresAt,
    };
  }

  /** Ends one session (sign-out). */
  async end(sessionId: string): Promise<void> {
    await this.#store.delete(hashOpaqueToken(sessionId));
  }

  /** Ends every session of a user, optionally except the one in use (password change). */
  async endAllForUser(userId: string, options: { keepIdHash?: string } = {}): Promise<number> {
    return this.#store.deleteForUser(userId, options.keepIdHash);
  }

  /** Deletes sessions past either deadline; call periodically. */
  async deleteExpired(): Promise<number> {
    return this.#store.deleteExpired(this.#clock.now());
  }
}

/**
 * The CSRF token of a session, derived from its id: bound to the session without being stored,
 * and, since the id is secret and random, unguessable. Only a hash of the id is stored, and this
 * uses a different hash input, so the stored hash does not reveal the token either.
 */
export function csrfTokenFor(sessionId: string): string {
  return createHash('sha256').update(`csrf\0${sessionId}`, 'utf8').digest('base64url');
}

/** Constant-time check of a presented CSRF token against a session's. */
export function csrfTokenMatches(expected: string, presented: string | undefined): boolean {
  return presented !== undefined && presented.length > 0 && secretsMatch(presented, expected);
}

import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  ApiError,
  assertSameOrigin,
  clearedSessionCookieOptions,
  csrfHeaderName,
  csrfTokenMatches,
  isStateChanging,
  KyselySessionStore,
  newOpaqueToken,
  sessionCookieOptions,
  SessionManager,
  type App,
  type SessionPolicy,
} from '@playstack/server-kit';
import { findAdminById, type AdminUser } from './admin-accounts-store.js';

export const adminSessionCookie = 'admin_session';
/** Double-submit cookie protecting the sign-in and registration forms, before any session exists. */
export const adminFormCsrfCookie = 'admin_form_csrf';
/** The hidden form field every admin form carries its CSRF token in. */
export const csrfFieldName = '_csrf';

/** The signed-in administrator of a request. */
export interface AdminSession {
  user: AdminUser;
  sessionId: string;
  csrfToken: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the admin scope when the request carries a live admin session. */
    adminSession: AdminSession | null;
  }
}

/** True when the client asked for the page's data as JSON rather than HTML. */
export function wantsJson(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? '';
  return accept.includes('application/json') && !accept.includes('text/html');
}

function presentedCsrfToken(request: FastifyRequest): string | undefined {
  const body = request.body as Record<string, unknown> | undefined;
  const fromForm = body && typeof body[csrfFieldName] === 'string' ? (body[csrfFieldName] as string) : undefined;
  const header = request.headers[csrfHeaderName];
  return fromForm ?? (typeof header === 'string' ? header : undefined);
}

/**
 * Admin browser sessions: a cookie naming a hashed session row, the session's CSRF token in
 * every form, same-origin checks on every state-changing request.
 */
export class AdminSessions {
  readonly manager: SessionManager;
  readonly #policy: SessionPolicy;
  readonly #app: App;

  constructor(app: App, policy: SessionPolicy) {
    this.#app = app;
    this.#policy = policy;
    this.manager = new SessionManager(new KyselySessionStore(app.database.db, 'admin_sessions'), app.clock, policy);
  }

  /** Resolves the request's session from its cookie (null when absent, expired or the user is gone). */
  async resolve(request: FastifyRequest): Promise<AdminSession | null> {
    const sessionId = request.cookies[adminSessionCookie];
    if (!sessionId) return null;
    const session = await this.manager.resume(sessionId);
    if (!session) return null;
    const user = await findAdminById(this.#app.database.db, session.userId);
    return user ? { user, sessionId, csrfToken: session.csrfToken } : null;
  }

  /** Signs a user in with a fresh session id and sets the cookie. */
  async signIn(request: FastifyRequest, reply: FastifyReply, userId: string): Promise<void> {
    const previous = request.cookies[adminSessionCookie];
    if (previous) await this.manager.end(previous);
    const started = await this.manager.start(userId);
    reply.setCookie(adminSessionCookie, started.sessionId, sessionCookieOptions(request, Math.floor(this.#policy.absoluteLifetimeMs / 1000)));
  }

  async signOut(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const sessionId = request.cookies[adminSessionCookie];
    if (sessionId) await this.manager.end(sessionId);
    reply.clearCookie(adminSessionCookie, clearedSessionCookieOptions(request));
  }

  /**
   * The token the sign-in and registration forms carry: a random value also set as a cookie
   * (SameSite=Strict, HttpOnly); a POST must present both, equal.
   */
  formCsrfToken(request: FastifyRequest, reply: FastifyReply): string {
    const existing = request.cookies[adminFormCsrfCookie];
    if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
    const token = newOpaqueToken();
    reply.setCookie(adminFormCsrfCookie, token, { ...sessionCookieOptions(request, 3600), sameSite: 'strict', path: '/admin' });
    return token;
  }

  /** Refuses a state-changing request that is cross-site or lacks the right CSRF token (403 csrf-failed). */
  assertCsrf(request: FastifyRequest): void {
    if (!isStateChanging(request.method)) return;
    assertSameOrigin(request);
    const expected = request.adminSession?.csrfToken ?? request.cookies[adminFormCsrfCookie];
    if (!expected || !csrfTokenMatches(expected, presentedCsrfToken(request))) {
      throw new ApiError('csrf-failed', 'This form has expired or did not come from this site; reload the page and try again.');
    }
  }
}

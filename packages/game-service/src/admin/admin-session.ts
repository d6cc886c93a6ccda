import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  ApiError,
  assertSameOrigin,
  clearedSessionCookieOptions,
  csrfHeaderName,
  csrfTokenMatches,
  isStateChanging,
  newOpaqueToken,
  sessionCookieOptions,
  type AccountsService,
  type PublicAccount,
  type StartedSession,
} from '@playstack/server-kit';

export const adminSessionCookie = 'admin_session';
/** Double-submit cookie protecting the sign-in and registration forms, before any session exists. */
export const adminFormCsrfCookie = 'admin_form_csrf';
/** The hidden form field every admin form carries its CSRF token in. */
export const csrfFieldName = '_csrf';

/** The signed-in administrator of a request. */
export interface AdminSession {
  user: PublicAccount;
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
 * Admin browser sessions over the kit's accounts: a cookie naming a hashed session row, the
 * session's CSRF token in every form, same-origin checks on every state-changing request.
 */
export class AdminSessions {
  readonly #accounts: AccountsService;
  readonly #cookieMaxAgeSeconds: number;

  constructor(accounts: AccountsService, absoluteLifetimeMs: number) {
    this.#accounts = accounts;
    this.#cookieMaxAgeSeconds = Math.floor(absoluteLifetimeMs / 1000);
  }

  /** Resolves the request's session from its cookie (null when absent, expired or the account is gone). */
  async resolve(request: FastifyRequest): Promise<AdminSession | null> {
    const sessionId = request.cookies[adminSessionCookie];
    if (!sessionId) return null;
    const resumed = await this.#accounts.resume(sessionId);
    return resumed ? { user: resumed.account, sessionId, csrfToken: resumed.csrfToken } : null;
  }

  /** Sets the cookie of a session just started, ending the one the browser held before. */
  async signIn(request: FastifyRequest, reply: FastifyReply, session: StartedSession): Promise<void> {
    const previous = request.cookies[adminSessionCookie];
    if (previous) await this.#accounts.signOut(previous);
    reply.setCookie(adminSessionCookie, session.sessionId, sessionCookieOptions(request, this.#cookieMaxAgeSeconds));
  }

  async signOut(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const sessionId = request.cookies[adminSessionCookie];
    if (sessionId) await this.#accounts.signOut(sessionId);
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

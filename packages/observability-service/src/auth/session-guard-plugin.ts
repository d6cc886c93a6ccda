import cookie from '@fastify/cookie';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest, RawServerDefault } from 'fastify';
import fp from 'fastify-plugin';
import { Counter } from 'prom-client';
import {
  accountsDb,
  AccountsService,
  ApiError,
  attemptCounterFor,
  LoginThrottle,
  TrustedDevices,
  defaultTrustedDeviceLifetimeMs,
  assertCsrfToken,
  assertSameOrigin,
  clearedSessionCookieOptions,
  createMailer,
  isStateChanging,
  sessionCookieOptions,
  type PublicAccount,
  type StartedSession,
} from '@playstack/server-kit';
import type { ObservabilityApp } from '../database.js';

/** The session cookie's name (docs/observability-accounts.md). */
export const sessionCookieName = 'obs_session';

/** The signed-in user of a request and their session. */
export interface RequestSession {
  user: PublicAccount;
  sessionId: string;
  idHash: string;
  csrfToken: string;
}

type Guard = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

declare module 'fastify' {
  interface FastifyInstance {
    /** The dashboard's accounts: setup, sign-in, sessions, passwords, invitations, roles. */
    authService: AccountsService;
    /** Device cookies of browsers that signed in before (their own sign-in budget). */
    trustedDevices: TrustedDevices;
    /** Route hook (`onRequest` or `preHandler`): 401 `unauthorized` unless signed in. */
    requireSession: Guard;
    /** Route hook: 401 signed out, 403 `forbidden` unless the user is an admin. */
    requireAdmin: Guard;
    /** Sets the session cookie for a session just started. */
    setSessionCookie(reply: FastifyReply, session: StartedSession): void;
    clearSessionCookie(reply: FastifyReply): void;
  }
  interface FastifyRequest {
    /**
     * The signed-in user: set once `requireSession` or `requireAdmin` has run (and on every
     * state-changing request, for the CSRF check).
     */
    signedIn: RequestSession | undefined;
  }
}

export interface SessionGuardOptions {
  idleTimeoutMs: number;
  absoluteLifetimeMs: number;
  passwordResetTtlMs: number;
  invitationTtlMs: number;
  publicUrl: string | undefined;
  smtpUrl: string | undefined;
  mailFrom: string;
  /** Secrets device cookies are signed with (first) and verified with (all). */
  deviceSecrets: readonly Buffer[];
}

/** Routes browsers call without a session (sign-in, setup, reset): origin-checked all the same. */
const browserOnlyPrefixes = ['/api/v1/auth/', '/api/v1/admin/'];
const sessionTouchIntervalMs = 60_000;
const expiredSweepIntervalMs = 10 * 60_000;

/**
 * Browser sessions for the dashboard: reads the `obs_session` cookie on every request, enforces
 * CSRF on state-changing ones (same-origin headers plus the session's `X-CSRF-Token`), and gives
 * routes `requireSession` / `requireAdmin` hooks.
 */
export const sessionGuardPlugin = fp<SessionGuardOptions, RawServerDefault, TypeBoxTypeProvider>(
  async (app: ObservabilityApp, options) => {
    await app.register(cookie);
    const counter = attemptCounterFor(app, 'obs-auth');
    const mailer = createMailer({ smtpUrl: options.smtpUrl, from: options.mailFrom, logger: app.log });
    const signIns = new Counter({
      name: 'observability_auth_sign_ins_total',
      help: 'Dashboard sign-in attempts by outcome: success, failure (wrong email or password), throttled',
      labelNames: ['outcome'],
      registers: [app.metrics],
    });
    const authService = new AccountsService({
      db: accountsDb(app.database.db),
      clock: app.clock,
      sessionPolicy: {
        idleTimeoutMs: options.idleTimeoutMs,
        absoluteLifetimeMs: options.absoluteLifetimeMs,
        touchIntervalMs: Math.min(sessionTouchIntervalMs, options.idleTimeoutMs / 2),
      },
      loginThrottle: new LoginThrottle(counter),
      passwordChangeThrottle: new LoginThrottle(attemptCounterFor(app, 'obs-password-change')),
      passwordReset: {
        ttlMs: options.passwordResetTtlMs,
        requests: counter,
        mailer,
        message: (to, token, expiresAt) => resetMail(to, token, expiresAt, options.publicUrl),
        onMailFailure: (error) => app.log.error({ err: error }, 'could not send the password reset mail'),
      },
      invitationTtlMs: options.invitationTtlMs,
      onSignIn: (outcome) => signIns.inc({ outcome }),
    });
    const allowedOrigins = options.publicUrl ? [new URL(options.publicUrl).origin.toLowerCase()] : [];
    const cookieMaxAgeSeconds = Math.floor(options.absoluteLifetimeMs / 1000);

    app.decorate('authService', authService);
    app.decorate(
      'trustedDevices',
      new TrustedDevices({
        cookieName: 'obs_device',
        path: '/api/v1/auth/',
        secrets: options.deviceSecrets,
        purpose: 'observability dashboard sign-in',
        lifetimeMs: defaultTrustedDeviceLifetimeMs,
        clock: app.clock,
      }),
    );
    app.decorateRequest('signedIn', undefined);
    app.decorate('setSessionCookie', (reply: FastifyReply, session: StartedSession) => {
      reply.setCookie(sessionCookieName, session.sessionId, sessionCookieOptions(reply.request, cookieMaxAgeSeconds));
    });
    app.decorate('clearSessionCookie', (reply: FastifyReply) => {
      reply.clearCookie(sessionCookieName, clearedSessionCookieOptions(reply.request));
    });

    // Resolved once per request, and only when something needs it: requests for the dashboard's
    // static files carry the cookie too, and need no database round trip.
    const resolved = new WeakSet<FastifyRequest>();
    const resolveSession = async (request: FastifyRequest): Promise<RequestSession | undefined> => {
      if (resolved.has(request)) return request.signedIn;
      resolved.add(request);
      const sessionId = request.cookies[sessionCookieName];
      const resumed = sessionId ? await authService.resume(sessionId) : undefined;
      if (sessionId && resumed) request.signedIn = { user: resumed.account, idHash: resumed.idHash, csrfToken: resumed.csrfToken, sessionId };
      return request.signedIn;
    };

    const requireSession: Guard = async (request) => {
      if (!(await resolveSession(request))) throw new ApiError('unauthorized', 'Sign in first: this endpoint needs a session.');
    };
    app.decorate('requireSession', requireSession);
    app.decorate('requireAdmin', async (request: FastifyRequest, reply: FastifyReply) => {
      await requireSession(request, reply);
      if (request.signedIn?.user.role !== 'admin') throw new ApiError('forbidden', 'Only admins may use the admin API.');
    });

    app.addHook('onRequest', async (request) => {
      if (!isStateChanging(request.method)) return;
      await resolveSession(request);
      const path = request.url.split('?', 1)[0] ?? '';
      if (request.signedIn || browserOnlyPrefixes.some((prefix) => path.startsWith(prefix))) assertSameOrigin(request, allowedOrigins);
      if (request.signedIn) assertCsrfToken(request, request.signedIn.csrfToken);
    });

    const sweep = setInterval(() => {
      authService.sweepExpired().catch((error: unknown) => app.log.warn({ err: error }, 'could not delete expired sessions and reset tokens'));
    }, expiredSweepIntervalMs);
    sweep.unref();
    app.addHook('onClose', async () => {
      clearInterval(sweep);
      await mailer.close();
    });
  },
  { name: 'session-guard' },
);

/** The mail carrying a reset token: the link when the dashboard's public URL is known, and the token itself. */
function resetMail(to: string, token: string, expiresAt: number, publicUrl: string | undefined) {
  const link = publicUrl ? `\n\n${publicUrl.replace(/\/+$/, '')}/reset-password#token=${token}` : '';
  return {
    to,
    subject: 'Reset your observability dashboard password',
    text:
      `Someone (hopefully you) asked to reset the password of ${to}.${link}\n\n` +
      `Reset token: ${token}\n\nIt works once, until ${new Date(expiresAt).toISOString()}. ` +
      'If you did not ask for this, ignore this message: your password stays as it is.',
  };
}

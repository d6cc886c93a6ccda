import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  accountsDb,
  AccountsService,
  ApiError,
  attemptCounterFor,
  defaultTrustedDeviceLifetimeMs,
  LoginThrottle,
  TrustedDevices,
  type SessionPolicy,
  type VersionInfo,
} from '@playstack/server-kit';
import { AdminData } from './admin-data.js';
import { adminGameRoutes } from './admin-game-routes.js';
import { adminPage } from './admin-layout.js';
import { adminManifestRoutes } from './admin-manifest-routes.js';
import { adminModerationRoutes } from './admin-moderation-routes.js';
import { adminOverviewRoutes } from './admin-overview-routes.js';
import type { AdminPageAnswer, AdminPageContext } from './admin-page-context.js';
import { AdminSessions, wantsJson } from './admin-session.js';
import { adminSignInRoutes, maxNextLength } from './admin-sign-in-routes.js';
import { adminSystemRoutes } from './admin-system-routes.js';
import type { GameApp } from '../database.js';

export interface AdminRoutesOptions {
  sessionPolicy: SessionPolicy;
  invitationTtlMs: number;
  version: VersionInfo;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Admin routes reachable without a session (sign-in, registration, the stylesheet). */
    adminPublic?: boolean;
  }
}

const securityHeaders = {
  'content-security-policy': "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
};

/**
 * The operators' pages under /admin: server-rendered HTML forms (GET shows, POST acts), each
 * page also answering `Accept: application/json` with its data. Accounts are the kit's; each
 * page's routes live in their own file.
 */
export async function adminRoutes(app: GameApp, options: AdminRoutesOptions): Promise<void> {
  await app.register(cookie);
  await app.register(formbody, { bodyLimit: app.initialConfig.bodyLimit });
  const accounts = new AccountsService({
    db: accountsDb(app.database.db),
    clock: app.clock,
    sessionPolicy: options.sessionPolicy,
    loginThrottle: new LoginThrottle(attemptCounterFor(app, 'admin-login:')),
    invitationTtlMs: options.invitationTtlMs,
  });
  const sessions = new AdminSessions(accounts, options.sessionPolicy.absoluteLifetimeMs);
  const devices = new TrustedDevices({
    cookieName: 'admin_device',
    path: '/admin/login',
    secrets: app.serviceSecrets,
    purpose: 'game admin sign-in',
    lifetimeMs: defaultTrustedDeviceLifetimeMs,
    clock: app.clock,
  });

  app.decorateRequest('adminSession', null);
  app.addHook('onSend', async (_request, reply) => {
    reply.headers(securityHeaders);
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
  });
  // Signed out is refused before the body is parsed or validated: what a form accepts is for
  // operators to learn, not anyone. The CSRF check needs the form's fields, so it runs once they
  // are parsed, and before they are validated: a forged request learns nothing of the form either.
  app.addHook('onRequest', async (request, reply) => {
    request.adminSession = await sessions.resolve(request);
    if (!request.routeOptions.config.adminPublic && !request.adminSession) {
      if (request.method === 'GET' && !wantsJson(request)) {
        // Back to the page after sign-in, unless its address is too long to carry along (a
        // Location header that size is more than clients accept, and /login refuses it anyway).
        const next = request.url.length <= maxNextLength ? `?next=${encodeURIComponent(request.url)}` : '';
        return reply.redirect(`/admin/login${next}`, 303);
      }
      throw new ApiError('unauthorized', 'Sign in at /admin/login first.');
    }
  });
  app.addHook('preValidation', async (request) => sessions.assertCsrf(request));

  function respond(request: FastifyRequest, reply: FastifyReply, page: AdminPageAnswer) {
    reply.code(page.status ?? 200);
    if (wantsJson(request)) return reply.send(page.json);
    const path = request.url.split('?')[0]!;
    return reply
      .type('text/html; charset=utf-8')
      .send(adminPage({ title: page.title, path, session: request.adminSession, notice: page.notice, body: page.body() }).toString());
  }

  const context: AdminPageContext = { app, accounts, sessions, data: new AdminData(app, accounts, options.version), respond };
  adminSignInRoutes(context, devices);
  adminOverviewRoutes(context);
  adminGameRoutes(context);
  adminManifestRoutes(context);
  adminModerationRoutes(context);
  adminSystemRoutes(context);
}

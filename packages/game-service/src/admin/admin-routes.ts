import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  ApiError,
  attemptCounterFor,
  findOddValue,
  hashOpaqueToken,
  hashPassword,
  LoginThrottle,
  TrustedDevices,
  defaultTrustedDeviceLifetimeMs,
  maxPasswordLength,
  minPasswordLength,
  verifyPassword,
  verifyPasswordAgainstNothing,
  type App,
  type SessionPolicy,
  type VersionInfo,
} from '@playstack/server-kit';
import type { Period } from '../manifest/manifest-schema.js';
import type { StoreManifestResult } from '../manifest/game-catalog.js';
import { describeOrphan } from '../manifest/manifest-changes.js';
import { runStatuses, type RunStatus } from '../runs/run-store.js';
import { countAdmins, findAdminByEmail, insertAdmin, spendInvitation } from './admin-accounts-store.js';
import { AdminData, type InvitationCreated } from './admin-data.js';
import { adminPage, type Notice } from './admin-layout.js';
import { AdminSessions, wantsJson } from './admin-session.js';
import { adminStylesheet } from './admin-styles.js';
import {
  adaptersBody,
  gameBody,
  gamesBody,
  healthBody,
  loginBody,
  manifestBody,
  overviewBody,
  registerBody,
  runsBody,
  type FormValues,
  type ManifestSubmission,
} from './admin-views.js';
import type { Html } from './html.js';

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

const maxFieldLength = 1_000_000;
/** The longest address a sign-in carries back to (the login page's `next`). */
const maxNextLength = 2048;
const runsPageSize = 50;
const periods: readonly Period[] = ['all', 'daily', 'weekly', 'monthly'];

/** Form and JSON bodies alike: flat string fields, bounded. */
const FormBody = Type.Record(Type.String(), Type.String({ maxLength: maxFieldLength }));
type Form = Record<string, string>;

const securityHeaders = {
  'content-security-policy': "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
};

/** A plausible email address: something@something, no spaces, at most 254 characters. */
function isEmailAddress(value: string): boolean {
  return /^[^\s@]+@[^\s@]+$/.test(value) && value.length <= 254;
}

function normalizedEmail(value: string | undefined): string {
  return (value ?? '').trim().toLowerCase();
}

/** What a form's confirmation checkbox (or a JSON `true`) says. */
function confirmed(value: unknown): boolean {
  return value === true || (typeof value === 'string' && ['yes', 'on', 'true', '1'].includes(value.toLowerCase()));
}

/** Stores a manifest posted as JSON text (a form) or as a JSON object; text that is not JSON is an invalid manifest. */
async function storeSubmittedManifest(app: App, body: { manifest?: unknown; confirm?: unknown }, author: string): Promise<StoreManifestResult> {
  let document: unknown = body.manifest;
  if (typeof document === 'string') {
    try {
      document = JSON.parse(document);
    } catch (error) {
      return { outcome: 'invalid', problems: [{ path: '', reason: `not valid JSON: ${(error as Error).message}` }] };
    }
    // Parsed here, so not seen by the check every request body gets.
    const odd = findOddValue(document);
    if (odd) return { outcome: 'invalid', problems: [{ path: odd.path.slice(1).replaceAll('/', '.'), reason: odd.message }] };
  }
  return app.games.storeManifest(document ?? null, { author, confirm: confirmed(body.confirm) });
}

/** Only same-site paths under /admin may be a post-sign-in destination. */
function safeNext(next: string | undefined): string {
  return next && /^\/admin(\/[^/\\]*)*(\?[^\\]*)?$/.test(next) && !next.startsWith('//') ? next : '/admin/';
}

/**
 * The operators' pages under /admin: server-rendered HTML forms (GET shows, POST acts), each
 * page also answering `Accept: application/json` with its data.
 */
export async function adminRoutes(app: App, options: AdminRoutesOptions): Promise<void> {
  await app.register(cookie);
  await app.register(formbody, { bodyLimit: app.initialConfig.bodyLimit });
  const sessions = new AdminSessions(app, options.sessionPolicy);
  const data = new AdminData(app, options.version);
  const throttle = new LoginThrottle(attemptCounterFor(app, 'admin-login:'));
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
  app.addHook('preHandler', async (request, reply) => {
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
    sessions.assertCsrf(request);
  });

  function respond(request: FastifyRequest, reply: FastifyReply, page: { title: string; json: unknown; body: () => Html; status?: number; notice?: Notice }) {
    reply.code(page.status ?? 200);
    if (wantsJson(request)) return reply.send(page.json);
    const path = request.url.split('?')[0]!;
    return reply
      .type('text/html; charset=utf-8')
      .send(adminPage({ title: page.title, path, session: request.adminSession, notice: page.notice, body: page.body() }).toString());
  }

  app.get('/assets/admin.css', { config: { adminPublic: true }, schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(adminStylesheet),
  );

  // Sign-in and registration.
  app.get('/login', { config: { adminPublic: true }, schema: { hide: true, querystring: Type.Object({ next: Type.Optional(Type.String({ maxLength: maxNextLength })) }) } }, async (request, reply) => {
    if (request.adminSession) return reply.redirect(safeNext(request.query.next), 303);
    const csrf = sessions.formCsrfToken(request, reply);
    return respond(request, reply, { title: 'Sign in', json: { signedIn: false, csrfToken: csrf }, body: () => loginBody(csrf, { next: request.query.next }) });
  });

  app.post('/login', { config: { adminPublic: true }, schema: { hide: true, body: FormBody } }, async (request, reply) => {
    const form = request.body as Form;
    const email = normalizedEmail(form.email);
    const password = form.password ?? '';
    const refuse = (status: number, text: string) => {
      if (wantsJson(request)) throw new ApiError(status === 429 ? 'rate-limited' : 'invalid-credentials', text);
      const csrf = sessions.formCsrfToken(request, reply);
      return respond(request, reply, { title: 'Sign in', status, notice: { kind: 'error', text }, json: null, body: () => loginBody(csrf, { email, next: form.next }) });
    };
    const source = { account: email, address: request.ip, device: devices.deviceOf(request, email) };
    try {
      await throttle.assertAllowed(source);
    } catch (error) {
      if (error instanceof ApiError) {
        reply.headers(error.headers);
        return refuse(429, error.message);
      }
      throw error;
    }
    const admin = await findAdminByEmail(app.database.db, email);
    const valid = admin ? await verifyPassword(admin.passwordHash, password) : await verifyPasswordAgainstNothing(password);
    if (!admin || !valid) {
      await throttle.recordFailure(source);
      return refuse(401, 'Wrong email or password.');
    }
    await throttle.recordSuccess(source);
    devices.trust(request, reply, email);
    await sessions.signIn(request, reply, admin.id);
    if (wantsJson(request)) return reply.send({ user: { id: admin.id, email: admin.email, name: admin.name } });
    return reply.redirect(safeNext(form.next), 303);
  });

  app.get('/register', { config: { adminPublic: true }, schema: { hide: true } }, async (request, reply) => {
    const needsInvitation = (await countAdmins(app.database.db)) > 0;
    const csrf = sessions.formCsrfToken(request, reply);
    return respond(request, reply, { title: 'Register', json: { needsInvitation, csrfToken: csrf }, body: () => registerBody(csrf, needsInvitation, {}) });
  });

  app.post('/register', { config: { adminPublic: true }, schema: { hide: true, body: FormBody } }, async (request, reply) => {
    const form = request.body as Form;
    const values: FormValues = { email: normalizedEmail(form.email), name: (form.name ?? '').trim(), invitation: form.invitation };
    const needsInvitation = (await countAdmins(app.database.db)) > 0;
    const refuse = (status: number, text: string) => {
      if (wantsJson(request)) throw new ApiError(status === 409 ? 'conflict' : status === 403 ? 'forbidden' : 'invalid-request', text);
      const csrf = sessions.formCsrfToken(request, reply);
      return respond(request, reply, { title: 'Register', status, notice: { kind: 'error', text }, json: null, body: () => registerBody(csrf, needsInvitation, values) });
    };
    const password = form.password ?? '';
    if (!values.name || values.name.length > 100) return refuse(400, 'A name of 1 to 100 characters is required.');
    if (!isEmailAddress(values.email ?? '')) return refuse(400, 'A valid email address is required.');
    if (password.length < minPasswordLength || password.length > maxPasswordLength) {
      return refuse(400, `The password needs ${minPasswordLength} to ${maxPasswordLength} characters.`);
    }
    const now = app.clock.now();
    if (needsInvitation) {
      const invitation = values.invitation ? await spendInvitation(app.database.db, hashOpaqueToken(values.invitation.trim()), now) : undefined;
      if (!invitation) return refuse(403, 'Registration needs a valid, unused, unexpired invitation token from an administrator.');
    }
    const id = await insertAdmin(app.database.db, { email: values.email!, name: values.name, passwordHash: await hashPassword(password) }, now);
    if (!id) return refuse(409, 'An administrator with this email already exists.');
    await sessions.signIn(request, reply, id);
    devices.trust(request, reply, values.email!);
    if (wantsJson(request)) return reply.code(201).send({ user: { id, email: values.email, name: values.name } });
    return reply.redirect('/admin/', 303);
  });

  app.post('/logout', { schema: { hide: true } }, async (request, reply) => {
    await sessions.signOut(request, reply);
    if (wantsJson(request)) return reply.send({ signedOut: true });
    return reply.redirect('/admin/login', 303);
  });

  // Pages.
  async function showOverview(request: FastifyRequest, reply: FastifyReply, created?: InvitationCreated) {
    const overview = await data.overview();
    const csrf = request.adminSession!.csrfToken;
    return respond(request, reply, { title: 'Overview', status: created ? 201 : 200, json: created ?? overview, body: () => overviewBody(overview, csrf, created) });
  }

  app.get('/', { schema: { hide: true } }, async (request, reply) => showOverview(request, reply));

  app.post('/invitations', { schema: { hide: true, body: FormBody } }, async (request, reply) => {
    const email = normalizedEmail((request.body as Form).email);
    if (!isEmailAddress(email)) throw new ApiError('invalid-request', 'body.email must be an email address');
    const created = await data.createInvitation(email, request.adminSession!.user.id, options.invitationTtlMs);
    return showOverview(request, reply, created);
  });

  app.get('/games', { schema: { hide: true } }, async (request, reply) => {
    const games = await data.games();
    return respond(request, reply, { title: 'Games', json: { games }, body: () => gamesBody(games) });
  });

  const GameParams = Type.Object({ gameId: Type.String() });

  app.get('/games/:gameId', { schema: { hide: true, params: GameParams, querystring: Type.Object({ period: Type.Optional(Type.String({ maxLength: 10 })) }) } }, async (request, reply) => {
    const game = app.games.require(request.params.gameId);
    const requested = periods.find((p) => p === request.query.period);
    const boards = await data.boardTops(game, requested);
    return respond(request, reply, {
      title: game.name,
      json: { game: { id: game.id, name: game.name, provider: game.auth.provider, adapters: game.adapters }, boards },
      body: () => gameBody(game, boards),
    });
  });

  app.get(
    '/games/:gameId/runs',
    {
      schema: {
        hide: true,
        params: GameParams,
        querystring: Type.Object({
          status: Type.Optional(Type.String({ maxLength: 16 })),
          player: Type.Optional(Type.String({ maxLength: 128 })),
          before: Type.Optional(Type.Integer({ minimum: 1 })),
        }),
      },
    },
    async (request, reply) => {
      const game = app.games.require(request.params.gameId);
      const { status, player, before } = request.query;
      if (status && !runStatuses.includes(status as RunStatus)) {
        throw new ApiError('invalid-request', `querystring.status must be one of ${runStatuses.join(', ')}`);
      }
      const view = await data.runs(game.id, { status: (status || undefined) as RunStatus | undefined, player: player || undefined }, before, runsPageSize);
      return respond(request, reply, { title: `Runs of ${game.name}`, json: view, body: () => runsBody(view) });
    },
  );

  app.get('/manifest', { schema: { hide: true } }, async (request, reply) => {
    const view = await data.manifest();
    const csrf = request.adminSession!.csrfToken;
    return respond(request, reply, { title: 'Manifest', json: view, body: () => manifestBody(view, csrf, undefined) });
  });

  /** A manifest submitted as JSON (`{"manifest": {...}, "confirm"?: true}`); forms send text and `confirm=yes`. */
  const ManifestJsonBody = Type.Object({ manifest: Type.Object({}, { additionalProperties: true }), confirm: Type.Optional(Type.Boolean()) }, { additionalProperties: false });

  app.post('/manifest', { schema: { hide: true, body: Type.Union([FormBody, ManifestJsonBody]) } }, async (request, reply) => {
    const body = request.body as { manifest?: unknown; confirm?: unknown };
    const text = typeof body.manifest === 'string' ? body.manifest : JSON.stringify(body.manifest ?? null, null, 2);
    const outcome = await storeSubmittedManifest(app, body, request.adminSession!.user.email);
    const showForm = async (status: number, notice: Notice | undefined, submitted: ManifestSubmission | undefined) => {
      const view = await data.manifest();
      return respond(request, reply, { title: 'Manifest', status, notice, json: null, body: () => manifestBody(view, request.adminSession!.csrfToken, submitted) });
    };
    switch (outcome.outcome) {
      case 'stored':
        if (wantsJson(request)) return reply.code(201).send({ version: outcome.version });
        return showForm(201, { kind: 'success', text: `Saved as version ${outcome.version.version}; it is served now.` }, undefined);
      case 'unchanged':
        if (wantsJson(request)) return reply.send({ version: outcome.version, unchanged: true });
        return showForm(200, { kind: 'success', text: `Nothing to save: version ${outcome.version.version} is this same manifest, and it is served.` }, undefined);
      case 'needs-confirmation': {
        const orphans = outcome.orphans.map(describeOrphan);
        if (wantsJson(request)) {
          throw new ApiError('conflict', `Storing this manifest would orphan data of ${orphans.join('; ')}. Send it again with "confirm": true to store it anyway.`);
        }
        return showForm(409, undefined, { text, orphans });
      }
      case 'invalid':
        if (wantsJson(request)) {
          throw new ApiError('invalid-manifest', `The manifest was refused: ${outcome.problems.map((p) => `${p.path || '/'}: ${p.reason}`).join('; ')}`);
        }
        return showForm(400, undefined, { text, problems: outcome.problems });
    }
  });

  app.get('/adapters', { schema: { hide: true } }, async (request, reply) => {
    const adapters = data.adapters();
    const json = {
      adapters: adapters.map(({ type, usedBy }) => ({ id: type.id, version: type.version, description: type.description, outputs: type.outputs, payloadSchema: type.payloadSchema, usedBy })),
    };
    return respond(request, reply, { title: 'Adapters', json, body: () => adaptersBody(adapters) });
  });

  app.get('/health', { schema: { hide: true } }, async (request, reply) => {
    const health = await data.health();
    return respond(request, reply, { title: 'Health', json: health, body: () => healthBody(health) });
  });
}

import { readFileSync } from 'node:fs';
import type { App } from '@playstack/server-kit';
import { createTestDatabase, type TestDatabase } from '@playstack/server-kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asBrowser, invitedUser, setUpFirstAdmin, type BrowserSession } from './browser-session.js';
import { buildTestApp } from './test-app.js';

/**
 * The security every route of the dashboard API must have, checked route by route for a whole
 * group (an OpenAPI tag) by `test/security/<group>.security.test.ts`, as unkey's API tests do.
 * The routes come from the OpenAPI document (which `route-groups.test.ts` holds to Fastify's
 * route table), so a route added to a group gets these checks without anyone listing it.
 */

/** Routes of the dashboard API: everything under this prefix but the ingestion endpoint. */
export const dashboardApiPrefix = '/api/v1/';
/** The ingestion endpoint's tag: authenticated with ingestion keys, not sessions (ingest tests). */
export const ingestTag = 'ingest';

/** The only routes a signed-out browser may call: first-run setup, sign-in, reset, invitation. */
export const signedOutRoutes: ReadonlySet<string> = new Set([
  'POST /api/v1/auth/setup',
  'POST /api/v1/auth/login',
  'POST /api/v1/auth/password-reset/request',
  'POST /api/v1/auth/password-reset/confirm',
  'POST /api/v1/auth/invitations/accept',
]);

const isStateChanging = (method: string) => !['GET', 'HEAD', 'OPTIONS'].includes(method);

/** Admin-only routes: the whole admin API, and every change to alerts (rules, silences, channels, previews, tests). */
export function isAdminOnly(route: { method: string; path: string }): boolean {
  return route.path.startsWith('/api/v1/admin/') || (route.path.startsWith('/api/v1/alerts/') && isStateChanging(route.method));
}

export interface DashboardRoute {
  method: string;
  /** OpenAPI form: `/api/v1/admin/keys/{id}`. */
  path: string;
  tags: string[];
  /** The security schemes the document declares for the route. */
  security: string[];
}

interface OpenApiOperation {
  tags?: string[];
  security?: Array<Record<string, unknown>>;
}
export interface OpenApiPaths {
  paths: Record<string, Record<string, OpenApiOperation>>;
}

const httpMethods = ['get', 'post', 'put', 'patch', 'delete'];

/** The dashboard API's routes in an OpenAPI document. */
export function dashboardRoutes(document: OpenApiPaths): DashboardRoute[] {
  return Object.entries(document.paths)
    .filter(([path]) => path.startsWith(dashboardApiPrefix))
    .flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => httpMethods.includes(method))
        .map(([method, operation]) => ({
          method: method.toUpperCase(),
          path,
          tags: operation.tags ?? [],
          security: (operation.security ?? []).flatMap((requirement) => Object.keys(requirement)),
        })),
    )
    .filter((route) => !route.tags.includes(ingestTag));
}

/** The committed OpenAPI document (the drift test holds it equal to the served one). */
export function committedDocument(): OpenApiPaths {
  return JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8')) as OpenApiPaths;
}

/** Path parameters get a placeholder: the checks answer before any parameter is validated. */
const urlOf = (route: DashboardRoute) => route.path.replace(/\{\w+\}/g, 'placeholder');

/**
 * Runs the shared checks against every route of `group`: signed out (no cookie, or one of no
 * session) 401 `unauthorized`; a member 403 `forbidden` on admin-only routes, which let an admin
 * through; 403 `csrf-failed` on state-changing routes without the session's CSRF token.
 */
export function describeRouteGroupSecurity(group: string): void {
  const routes = dashboardRoutes(committedDocument()).filter((route) => route.tags.includes(group));
  let database: TestDatabase;
  let app: App;
  let admin: BrowserSession;
  let member: BrowserSession;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    app = await buildTestApp(database);
    admin = await setUpFirstAdmin(app);
    member = await invitedUser(app, admin, 'member@example.com', 'member');
  });
  afterAll(async () => {
    await app?.close();
    await database?.dispose();
  });

  it(`has routes tagged ${group}`, () => {
    expect(routes.length).toBeGreaterThan(0);
  });

  for (const route of routes) {
    const name = `${route.method} ${route.path}`;
    const signedOutAllowed = signedOutRoutes.has(name);
    describe(name, () => {
      it(signedOutAllowed ? 'declares no security scheme: it is for signed-out browsers' : 'declares the session security scheme', () => {
        expect(route.security).toEqual(signedOutAllowed ? [] : ['session']);
      });

      if (!signedOutAllowed) {
        it('answers 401 unauthorized signed out, or with a cookie of no session', async () => {
          for (const cookies of [{}, { obs_session: 'not-a-session' }] as Array<Record<string, string>>) {
            const response = await app.inject({ method: route.method, url: urlOf(route), cookies });
            expect(response.statusCode).toBe(401);
            expect(response.json().error.code).toBe('unauthorized');
          }
        });
      }

      if (isAdminOnly(route)) {
        it('answers 403 forbidden to a member, and lets an admin through', async () => {
          const refused = await asBrowser(app, member, { method: route.method, url: urlOf(route) });
          expect(refused.statusCode).toBe(403);
          expect(refused.json().error.code).toBe('forbidden');
          const allowed = await asBrowser(app, admin, { method: route.method, url: urlOf(route) });
          expect([401, 403]).not.toContain(allowed.statusCode);
        });
      }

      if (isStateChanging(route.method)) {
        it("answers 403 csrf-failed to a signed-in browser without the session's CSRF token, or with another", async () => {
          for (const token of [undefined, member.csrfToken]) {
            const headers: Record<string, string> = token === undefined ? {} : { 'x-csrf-token': token };
            const response = await app.inject({ method: route.method, url: urlOf(route), headers, cookies: { obs_session: admin.cookie } });
            expect(response.statusCode).toBe(403);
            expect(response.json().error.code).toBe('csrf-failed');
          }
        });
      }
    });
  }
}

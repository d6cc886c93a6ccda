import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorResponses, normalizeEmail, type SignedIn } from '@playstack/server-kit';
import {
  InvitationAcceptBody,
  LoginBody,
  LogoutResponse,
  PasswordChangeBody,
  PasswordResetConfirmBody,
  PasswordResetConfirmResponse,
  PasswordResetRequestBody,
  PasswordResetRequestResponse,
  SetupBody,
  SignedInResponse,
} from './auth-schemas.js';

const tags = ['auth'];
const session = [{ session: [] }];

/** The dashboard's authentication endpoints under `/api/v1/auth` (an application API, not a stable one). */
export const authRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const signIn = async (signedIn: SignedIn, request: FastifyRequest, reply: FastifyReply) => {
    // Signing in over an existing session replaces it rather than leaving it alive beside the new one.
    if (request.signedIn) await app.authService.signOut(request.signedIn.sessionId);
    app.setSessionCookie(reply, signedIn.session);
    // This browser now knows the password: it keeps a sign-in budget of its own from now on.
    app.trustedDevices.trust(request, reply, signedIn.account.email);
    return { user: signedIn.account, csrfToken: signedIn.session.csrfToken };
  };

  app.get(
    '/session',
    {
      onRequest: app.requireSession,
      schema: { tags, summary: 'The signed-in user and the CSRF token', security: session, response: { 200: SignedInResponse, ...errorResponses(401) } },
    },
    async (request) => ({ user: request.signedIn!.user, csrfToken: request.signedIn!.csrfToken }),
  );

  app.post(
    '/setup',
    {
      schema: {
        tags,
        summary: 'Create the first admin and sign in (only while no user exists)',
        body: SetupBody,
        response: { 200: SignedInResponse, ...errorResponses(400, 403, 409) },
      },
    },
    async (request, reply) => signIn(await app.authService.setup(request.body), request, reply),
  );

  app.post(
    '/login',
    {
      schema: {
        tags,
        summary: 'Sign in with email and password',
        body: LoginBody,
        response: { 200: SignedInResponse, ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request, reply) =>
      signIn(await app.authService.signIn(request.body, { address: request.ip, device: app.trustedDevices.deviceOf(request, normalizeEmail(request.body.email)) }), request, reply),
  );

  app.post(
    '/logout',
    {
      onRequest: app.requireSession,
      schema: { tags, summary: 'Sign out: ends the session on the server', security: session, response: { 200: LogoutResponse, ...errorResponses(401, 403) } },
    },
    async (request, reply) => {
      await app.authService.signOut(request.signedIn!.sessionId);
      app.clearSessionCookie(reply);
      return { signedOut: true as const };
    },
  );

  app.post(
    '/password',
    {
      onRequest: app.requireSession,
      schema: {
        tags,
        summary: "Change the password (needs the current one); ends the user's other sessions",
        security: session,
        body: PasswordChangeBody,
        response: { 200: SignedInResponse, ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => {
      const { user, idHash, csrfToken } = request.signedIn!;
      await app.authService.changePassword(user.id, idHash, request.body, request.ip);
      return { user, csrfToken };
    },
  );

  app.post(
    '/password-reset/request',
    {
      schema: {
        tags,
        summary: 'Mail a single-use password reset token (the same answer for unknown emails)',
        body: PasswordResetRequestBody,
        response: { 202: PasswordResetRequestResponse, ...errorResponses(400, 403) },
      },
    },
    async (request, reply) => {
      await app.authService.requestPasswordReset(request.body.email, request.ip);
      return reply.code(202).send({ requested: true });
    },
  );

  app.post(
    '/password-reset/confirm',
    {
      schema: {
        tags,
        summary: 'Set a new password with a reset token; ends every session of the user',
        body: PasswordResetConfirmBody,
        response: { 200: PasswordResetConfirmResponse, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      await app.authService.confirmPasswordReset(request.body);
      return { passwordReset: true as const };
    },
  );

  app.post(
    '/invitations/accept',
    {
      schema: {
        tags,
        summary: 'Accept an invitation: choose a name and password, and sign in',
        body: InvitationAcceptBody,
        response: { 200: SignedInResponse, ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) => signIn(await app.authService.acceptInvitation(request.body), request, reply),
  );
};

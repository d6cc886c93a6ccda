import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, maxPasswordLength, minPasswordLength, type SignedIn, type TrustedDevices } from '@playstack/server-kit';
import { FormBody, isEmailAddress, normalizedEmail, type AdminPageContext, type Form } from './admin-page-context.js';
import { wantsJson } from './admin-session.js';
import { loginBody, registerBody, type FormValues } from './admin-views.js';
import type { Html } from './html.js';

/** The longest address a sign-in carries back to (the login page's `next`). */
export const maxNextLength = 2048;

const invitationNeeded = 'Registration needs a valid, unused, unexpired invitation token from an administrator.';

/** Only same-site paths under /admin may be a post-sign-in destination. */
function safeNext(next: string | undefined): string {
  return next && /^\/admin(\/[^/\\]*)*(\?[^\\]*)?$/.test(next) && !next.startsWith('//') ? next : '/admin/';
}

/** The page a refused form is shown again on: its status and notice, or the error for JSON clients. */
function refusal(context: AdminPageContext, request: FastifyRequest, reply: FastifyReply, title: string, body: (csrf: string) => Html) {
  return (status: number, text: string) => {
    if (wantsJson(request)) throw new ApiError(({ 429: 'rate-limited', 409: 'conflict', 403: 'forbidden', 400: 'invalid-request' } as const)[status] ?? 'invalid-credentials', text);
    const csrf = context.sessions.formCsrfToken(request, reply);
    return context.respond(request, reply, { title, status, notice: { kind: 'error', text }, json: null, body: () => body(csrf) });
  };
}

/** Sign-in, registration (the first administrator freely, later ones by invitation) and sign-out. */
export function adminSignInRoutes(context: AdminPageContext, devices: TrustedDevices): void {
  const { app, accounts, sessions, respond } = context;

  app.get('/login', { config: { adminPublic: true }, schema: { hide: true, querystring: Type.Object({ next: Type.Optional(Type.String({ maxLength: maxNextLength })) }) } }, async (request, reply) => {
    if (request.adminSession) return reply.redirect(safeNext(request.query.next), 303);
    const csrf = sessions.formCsrfToken(request, reply);
    return respond(request, reply, { title: 'Sign in', json: { signedIn: false, csrfToken: csrf }, body: () => loginBody(csrf, { next: request.query.next }) });
  });

  app.post('/login', { config: { adminPublic: true }, schema: { hide: true, body: FormBody } }, async (request, reply) => {
    const form = request.body as Form;
    const email = normalizedEmail(form.email);
    const refuse = refusal(context, request, reply, 'Sign in', (csrf) => loginBody(csrf, { email, next: form.next }));
    let signedIn: SignedIn;
    try {
      signedIn = await accounts.signIn({ email, password: form.password ?? '' }, { address: request.ip, device: devices.deviceOf(request, email) });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.code === 'rate-limited') {
        reply.headers(error.headers);
        return refuse(429, error.message);
      }
      if (error.code === 'invalid-credentials') return refuse(401, 'Wrong email or password.');
      throw error;
    }
    devices.trust(request, reply, email);
    await sessions.signIn(request, reply, signedIn.session);
    if (wantsJson(request)) return reply.send({ user: { id: signedIn.account.id, email: signedIn.account.email, name: signedIn.account.name } });
    return reply.redirect(safeNext(form.next), 303);
  });

  app.get('/register', { config: { adminPublic: true }, schema: { hide: true } }, async (request, reply) => {
    const needsInvitation = (await accounts.countAccounts()) > 0;
    const csrf = sessions.formCsrfToken(request, reply);
    return respond(request, reply, { title: 'Register', json: { needsInvitation, csrfToken: csrf }, body: () => registerBody(csrf, needsInvitation, {}) });
  });

  app.post('/register', { config: { adminPublic: true }, schema: { hide: true, body: FormBody } }, async (request, reply) => {
    const form = request.body as Form;
    const values: FormValues = { email: normalizedEmail(form.email), name: (form.name ?? '').trim(), invitation: form.invitation };
    const needsInvitation = (await accounts.countAccounts()) > 0;
    const refuse = refusal(context, request, reply, 'Register', (csrf) => registerBody(csrf, needsInvitation, values));
    const email = values.email ?? '';
    const password = form.password ?? '';
    if (!values.name || values.name.length > 100) return refuse(400, 'A name of 1 to 100 characters is required.');
    if (!isEmailAddress(email)) return refuse(400, 'A valid email address is required.');
    if (password.length < minPasswordLength || password.length > maxPasswordLength) {
      return refuse(400, `The password needs ${minPasswordLength} to ${maxPasswordLength} characters.`);
    }
    let signedIn: SignedIn;
    try {
      // The registrant chooses the address (the form asks for it), invited or not.
      signedIn = needsInvitation
        ? await accounts.acceptInvitation({ token: (values.invitation ?? '').trim(), name: values.name, password, email })
        : await accounts.setup({ email, name: values.name, password });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.code === 'conflict') return refuse(409, 'An administrator with this email already exists.');
      // Setup claimed meanwhile by someone else: from now on, registration needs an invitation.
      if (error.code === 'invalid-grant' || error.code === 'already-set-up') return refuse(403, invitationNeeded);
      throw error;
    }
    await sessions.signIn(request, reply, signedIn.session);
    devices.trust(request, reply, email);
    if (wantsJson(request)) return reply.code(201).send({ user: { id: signedIn.account.id, email, name: values.name } });
    return reply.redirect('/admin/', 303);
  });

  app.post('/logout', { schema: { hide: true } }, async (request, reply) => {
    await sessions.signOut(request, reply);
    if (wantsJson(request)) return reply.send({ signedOut: true });
    return reply.redirect('/admin/login', 303);
  });
}

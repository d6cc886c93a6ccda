import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '@playstack/server-kit';
import type { InvitationCreated } from './admin-data.js';
import { FormBody, isEmailAddress, normalizedEmail, type AdminPageContext, type Form } from './admin-page-context.js';
import { overviewBody } from './admin-views.js';

/** The overview page, where administrators also invite other administrators. */
export function adminOverviewRoutes(context: AdminPageContext): void {
  const { app, accounts, data, respond } = context;

  async function showOverview(request: FastifyRequest, reply: FastifyReply, created?: InvitationCreated) {
    const overview = await data.overview();
    const csrf = request.adminSession!.csrfToken;
    return respond(request, reply, { title: 'Overview', status: created ? 201 : 200, json: created ?? overview, body: () => overviewBody(overview, csrf, created) });
  }

  app.get('/', { schema: { hide: true } }, async (request, reply) => showOverview(request, reply));

  app.post('/invitations', { schema: { hide: true, body: FormBody } }, async (request, reply) => {
    const email = normalizedEmail((request.body as Form).email);
    if (!isEmailAddress(email)) throw new ApiError('invalid-request', 'body.email must be an email address');
    const { id, expiresAt, token } = await accounts.createInvitation({ email, role: 'admin', invitedBy: request.adminSession!.user.id });
    return showOverview(request, reply, { id, email, expiresAt, token });
  });
}

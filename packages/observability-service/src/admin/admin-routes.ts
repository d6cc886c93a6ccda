import { ApiError, errorResponses } from '@playstack/server-kit';
import { createIngestionKey, ingestionKeySummaries, revokeIngestionKeyById } from '../keys/ingestion-keys.js';
import {
  CreatedIngestionKey,
  CreatedInvitation,
  IdParams,
  IngestionKeyCreateBody,
  IngestionKeyList,
  ManagedUserSchema,
  InvitationCreateBody,
  InvitationList,
  Retention,
  Revoked,
  UserChangeBody,
  UserList,
} from './admin-schemas.js';
import type { ObservabilityApp } from '../database.js';

const tags = ['admin'];
const security = [{ session: [] }];
const iso = (ms: number) => new Date(ms).toISOString();
const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));

/** `/api/v1/admin`: users, invitations, ingestion keys and retention; admins only. */
export const adminRoutes = async (app: ObservabilityApp): Promise<void> => {
  app.addHook('onRequest', app.requireAdmin);
  const db = app.database.db;

  app.get(
    '/users',
    { schema: { tags, security, summary: 'List users', response: { 200: UserList, ...errorResponses(401, 403) } } },
    async () => ({ items: (await app.authService.accounts()).map((u) => ({ ...u, createdAt: iso(u.createdAt) })) }),
  );

  app.patch(
    '/users/:id',
    {
      schema: {
        tags,
        security,
        summary: "Change a user's role, or deactivate (ends their sessions) or reactivate them",
        params: IdParams,
        body: UserChangeBody,
        response: { 200: ManagedUserSchema, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const user = await app.authService.changeAccount(request.params.id, request.body);
      return { ...user, createdAt: iso(user.createdAt) };
    },
  );

  app.get(
    '/invitations',
    { schema: { tags, security, summary: 'List invitations', response: { 200: InvitationList, ...errorResponses(401, 403) } } },
    async () => ({
      items: (await app.authService.invitations()).map(({ id, email, role, status, createdAt, expiresAt }) => ({ id, email, role, status, createdAt: iso(createdAt), expiresAt: iso(expiresAt) })),
    }),
  );

  app.post(
    '/invitations',
    {
      schema: {
        tags,
        security,
        summary: 'Invite an email with a role; the token is shown once',
        body: InvitationCreateBody,
        response: { 201: CreatedInvitation, ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      const invitation = await app.authService.createInvitation({ ...request.body, invitedBy: request.signedIn!.user.id });
      const { id, email, role, expiresAt, token } = invitation;
      return reply.code(201).send({ id, email, role, expiresAt: iso(expiresAt), token });
    },
  );

  app.delete(
    '/invitations/:id',
    {
      schema: { tags, security, summary: 'Revoke a pending invitation', params: IdParams, response: { 200: Revoked, ...errorResponses(401, 403, 404) } },
    },
    async (request) => {
      await app.authService.revokeInvitation(request.params.id);
      return { revoked: true as const };
    },
  );

  app.get(
    '/keys',
    { schema: { tags, security, summary: 'List ingestion keys (never their secrets)', response: { 200: IngestionKeyList, ...errorResponses(401, 403) } } },
    async () => {
      // This instance's pending last-used times first, so the list is as fresh as it can be.
      await app.ingestionKeys.flushLastUsed();
      const keys = await ingestionKeySummaries(db);
      return {
        items: keys.map((k) => ({ ...k, createdAt: iso(k.createdAt), lastUsedAt: isoOrNull(k.lastUsedAt), revokedAt: isoOrNull(k.revokedAt) })),
      };
    },
  );

  app.post(
    '/keys',
    {
      schema: {
        tags,
        security,
        summary: 'Create a named ingestion key; the secret is shown this once',
        body: IngestionKeyCreateBody,
        response: { 201: CreatedIngestionKey, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const created = await createIngestionKey(db, { name: request.body.name.trim(), createdBy: request.signedIn!.user.id, now: app.clock.now() });
      await app.ingestionKeys.keysChanged();
      const { id, name, prefix, createdAt, key } = created;
      return reply.code(201).send({ id, name, prefix, createdAt: iso(createdAt), key });
    },
  );

  app.delete(
    '/keys/:id',
    {
      schema: {
        tags,
        security,
        summary: 'Revoke an ingestion key: it stops working at once, on every instance',
        params: IdParams,
        response: { 200: Revoked, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      if (!(await revokeIngestionKeyById(db, request.params.id, app.clock.now()))) {
        throw new ApiError('not-found', `No active ingestion key with id ${request.params.id}.`);
      }
      await app.ingestionKeys.keysChanged();
      return { revoked: true as const };
    },
  );

  app.get(
    '/retention',
    { schema: { tags, security, summary: 'Days of telemetry kept', response: { 200: Retention, ...errorResponses(401, 403) } } },
    // Read afresh: another instance may have changed it since this one's last prune.
    async () => ({ days: await app.retention.policy.refresh() }),
  );

  app.put(
    '/retention',
    {
      schema: { tags, security, summary: 'Set the days of telemetry kept', body: Retention, response: { 200: Retention, ...errorResponses(400, 401, 403) } },
    },
    async (request) => {
      await app.retention.policy.set(request.body.days, app.clock.now());
      return { days: request.body.days };
    },
  );
};

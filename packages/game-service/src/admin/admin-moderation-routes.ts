import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '@playstack/server-kit';
import type { Actor, AuditEntry } from '../moderation/moderation-service.js';
import { displayNamesOf } from '../players/player-service.js';
import { runReviews } from '../runs/run-review.js';
import type { Notice } from './admin-layout.js';
import type { AdminPageContext } from './admin-page-context.js';
import { wantsJson } from './admin-session.js';
import { auditBody, maxReasonLength, playerBody, playerSearchBody } from './admin-moderation-views.js';

const playersFound = 50;
const auditPageSize = 50;
const maxIdLength = 128;

const Id = Type.String({ minLength: 1, maxLength: maxIdLength });
const PlayerParams = Type.Object({ gameId: Id, playerId: Id });
const Csrf = Type.Optional(Type.String({ maxLength: 100 }));
const Reason = Type.String({ minLength: 1, maxLength: maxReasonLength, pattern: '\\S', description: 'why: kept in the audit log' });
const ReasonBody = Type.Object({ reason: Reason, _csrf: Csrf }, { additionalProperties: false });
const HideBody = Type.Object(
  {
    reason: Reason,
    /** A form's checkbox (`yes`) or a JSON boolean. */
    shadow: Type.Optional(Type.Union([Type.Boolean(), Type.String({ maxLength: 8 })])),
    /** ISO 8601; without a zone, UTC (a form's datetime-local field). Empty: no end. */
    until: Type.Optional(Type.String({ maxLength: 40 })),
    _csrf: Csrf,
  },
  { additionalProperties: false },
);
const RemoveEntryBody = Type.Object({ reason: Reason, boardId: Id, period: Type.String({ minLength: 1, maxLength: 17 }), _csrf: Csrf }, { additionalProperties: false });
const EraseBody = Type.Object({ reason: Reason, confirm: Type.Union([Type.Boolean(), Type.String({ maxLength: 8 })]), _csrf: Csrf }, { additionalProperties: false });
const ReviewBody = Type.Object({ reason: Reason, decision: Type.Union(runReviews.map((r) => Type.Literal(r))), _csrf: Csrf }, { additionalProperties: false });
const ReviewParams = Type.Object({ gameId: Id, runId: Type.Integer({ minimum: 1 }) });

function yes(value: boolean | string | undefined): boolean {
  return value === true || (typeof value === 'string' && ['yes', 'on', 'true', '1'].includes(value.toLowerCase()));
}

/** A form's `until`: ISO 8601, UTC when it names no zone; undefined for none. */
function parseUntil(value: string | undefined): number | null {
  if (value === undefined || value.trim() === '') return null;
  const text = value.trim();
  const ms = Date.parse(/(Z|[+-]\d\d:?\d\d)$/i.test(text) ? text : `${text}Z`);
  if (!Number.isFinite(ms)) throw new ApiError('invalid-request', `until "${value}" is not a date and time (ISO 8601, e.g. 2026-12-01T18:00).`);
  return ms;
}

/** Player search, the player page and its actions, the flagged-run review, and the audit log. */
export function adminModerationRoutes(context: AdminPageContext): void {
  const { app, respond } = context;
  const actorOf = (request: FastifyRequest, reason: string): Actor => ({ actor: request.adminSession!.user.email, reason: reason.trim() });

  const showPlayer = async (request: FastifyRequest, reply: FastifyReply, gameId: string, playerId: string, notice?: Notice, status?: number) => {
    const game = app.games.require(gameId);
    const view = await app.moderation.player(gameId, playerId);
    const now = app.clock.now();
    return respond(request, reply, {
      title: view.player.displayName,
      json: view,
      notice,
      status,
      body: () => playerBody(view, game, request.adminSession!.csrfToken, now),
    });
  };

  /**
   * Runs an action. JSON callers get its audit entry (or the error); a browser is shown the
   * player page again with what happened, or why nothing did.
   */
  const act = async (request: FastifyRequest, reply: FastifyReply, gameId: string, playerId: string | undefined, run: () => Promise<AuditEntry>, text: string) => {
    if (wantsJson(request)) return reply.send({ audit: await run() });
    let audit: AuditEntry;
    try {
      audit = await run();
    } catch (error) {
      if (!(error instanceof ApiError) || playerId === undefined || error.code === 'player-not-found') throw error;
      return showPlayer(request, reply, gameId, playerId, { kind: 'error', text: error.message }, error.statusCode);
    }
    if (audit.action === 'erase') return reply.redirect(`/admin/audit?game=${encodeURIComponent(gameId)}&player=${encodeURIComponent(audit.playerId)}`, 303);
    return showPlayer(request, reply, gameId, playerId ?? audit.playerId, { kind: 'success', text });
  };

  app.get(
    '/players',
    { schema: { hide: true, querystring: Type.Object({ q: Type.Optional(Type.String({ maxLength: 200 })), game: Type.Optional(Type.String({ maxLength: maxIdLength })) }) } },
    async (request, reply) => {
      const q = (request.query.q ?? '').trim();
      const game = request.query.game ?? '';
      const found = q === '' ? undefined : await app.moderation.findPlayers(q, { gameId: game || undefined, limit: playersFound });
      const now = app.clock.now();
      return respond(request, reply, { title: 'Players', json: { players: found ?? [] }, body: () => playerSearchBody(app.games.list(), { q, game }, found, now) });
    },
  );

  app.get('/games/:gameId/players/:playerId', { schema: { hide: true, params: PlayerParams } }, async (request, reply) =>
    showPlayer(request, reply, request.params.gameId, request.params.playerId),
  );

  app.post('/games/:gameId/players/:playerId/hide', { schema: { hide: true, params: PlayerParams, body: HideBody } }, async (request, reply) => {
    const { gameId, playerId } = request.params;
    const options = { shadow: yes(request.body.shadow), until: parseUntil(request.body.until) };
    return act(request, reply, gameId, playerId, () => app.moderation.hide(gameId, playerId, options, actorOf(request, request.body.reason)), `Hidden from every board${options.shadow ? ' (shadow mode)' : ''}.`);
  });

  app.post('/games/:gameId/players/:playerId/unhide', { schema: { hide: true, params: PlayerParams, body: ReasonBody } }, async (request, reply) => {
    const { gameId, playerId } = request.params;
    return act(request, reply, gameId, playerId, () => app.moderation.unhide(gameId, playerId, actorOf(request, request.body.reason)), 'Visible again: every entry is back.');
  });

  app.post('/games/:gameId/players/:playerId/entries/remove', { schema: { hide: true, params: PlayerParams, body: RemoveEntryBody } }, async (request, reply) => {
    const { gameId, playerId } = request.params;
    const { boardId, period, reason } = request.body;
    return act(request, reply, gameId, playerId, () => app.moderation.removeEntry(gameId, playerId, { boardId, period }, actorOf(request, reason)), `Entry on ${boardId} (${period}) removed.`);
  });

  app.post('/games/:gameId/players/:playerId/revoke-sessions', { schema: { hide: true, params: PlayerParams, body: ReasonBody } }, async (request, reply) => {
    const { gameId, playerId } = request.params;
    return act(request, reply, gameId, playerId, () => app.moderation.revokeSessions(gameId, playerId, actorOf(request, request.body.reason)), 'Sessions revoked.');
  });

  app.post('/games/:gameId/players/:playerId/erase', { schema: { hide: true, params: PlayerParams, body: EraseBody } }, async (request, reply) => {
    const { gameId, playerId } = request.params;
    if (!yes(request.body.confirm)) throw new ApiError('invalid-request', 'Erasing a player needs confirm: erasure cannot be undone.');
    return act(request, reply, gameId, playerId, () => app.moderation.erase(gameId, playerId, actorOf(request, request.body.reason)), 'Erased.');
  });

  app.post('/games/:gameId/runs/:runId/review', { schema: { hide: true, params: ReviewParams, body: ReviewBody } }, async (request, reply) => {
    const { gameId, runId } = request.params;
    const { decision, reason } = request.body;
    return act(request, reply, gameId, undefined, () => app.moderation.reviewRun(gameId, runId, decision, actorOf(request, reason)), `Run #${runId} ${decision === 'kept' ? 'kept' : 'rejected: its scores are withdrawn'}.`);
  });

  app.get(
    '/audit',
    {
      schema: {
        hide: true,
        querystring: Type.Object({
          game: Type.Optional(Type.String({ maxLength: maxIdLength })),
          player: Type.Optional(Type.String({ maxLength: maxIdLength })),
          before: Type.Optional(Type.Integer({ minimum: 1 })),
        }),
      },
    },
    async (request, reply) => {
      const { game = '', player = '', before } = request.query;
      const page = await app.moderation.audit({ gameId: game || undefined, playerId: player || undefined, beforeId: before, limit: auditPageSize });
      const names = await displayNamesOf(app.database.db, page.entries);
      const next = new URLSearchParams();
      if (game) next.set('game', game);
      if (player) next.set('player', player);
      if (page.nextBeforeId !== null) next.set('before', String(page.nextBeforeId));
      const now = app.clock.now();
      return respond(request, reply, {
        title: 'Audit log',
        json: page,
        body: () => auditBody(page.entries, names, { game, player }, page.nextBeforeId === null ? null : next.toString(), now),
      });
    },
  );
}

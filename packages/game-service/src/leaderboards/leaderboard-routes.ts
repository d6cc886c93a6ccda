import { errorResponses } from '@playstack/server-kit';
import type { GameFeature } from '../games/game-scope.js';
import { isoTimestamp } from './iso-time.js';
import { leaderboardSerializerCompiler } from './leaderboard-serializers.js';
import { andThen } from '../awaitable.js';
import type { RankedEntry } from './rank-index.js';
import {
  aroundMeRadiusDefault,
  AroundMeQuery,
  LeaderboardAroundMeResponse,
  LeaderboardMeResponse,
  LeaderboardPageResponse,
  LeaderboardParams,
  MeQuery,
  pageLimitDefault,
  PageQuery,
  type LeaderboardEntry,
} from './leaderboard-schemas.js';

function toResponseEntry(entry: RankedEntry): LeaderboardEntry {
  return {
    rank: entry.rank,
    playerId: entry.playerId,
    displayName: entry.displayName,
    score: entry.score,
    achievedAt: isoTimestamp(entry.achievedAt),
  };
}

/**
 * `GET /leaderboards/:boardId`, `/me` and `/around-me` under `/v1/games/:gameId`. The handlers
 * are not async: with the in-process engine the answer is ready at once and goes out without a
 * promise (Fastify sends a returned value or awaits a returned promise). Responses are written
 * by `leaderboardSerializerCompiler`'s serializers (entry strings that need no escaping).
 */
export const leaderboardRoutes: GameFeature = async (app) => {
  const guard = [app.requirePlayer, app.playerRateLimit];
  const errors = errorResponses(400, 401, 404, 429, 503);

  app.get(
    '/leaderboards/:boardId',
    {
      preHandler: guard,
      serializerCompiler: leaderboardSerializerCompiler,
      schema: {
        tags: ['leaderboards'],
        summary: 'A page of entries in rank order; follow nextCursor for the next one',
        security: [{ playerToken: [] }],
        params: LeaderboardParams,
        querystring: PageQuery,
        response: { 200: LeaderboardPageResponse, ...errors },
      },
    },
    (request) => {
      const { period, cursor, limit = pageLimitDefault } = request.query;
      return andThen(app.leaderboards.page(request.game, request.params.boardId, { period, cursor, limit }), (page) => ({
        ...page,
        entries: page.entries.map(toResponseEntry),
      }));
    },
  );

  app.get(
    '/leaderboards/:boardId/me',
    {
      preHandler: guard,
      serializerCompiler: leaderboardSerializerCompiler,
      schema: {
        tags: ['leaderboards'],
        summary: "The caller's entry and rank, the board's size, and with radius the neighbors",
        description: 'A player an operator hid has no entry here, unless hidden in shadow mode: then they still see their own entry, ranked among the visible entries, and a total counting them.',
        security: [{ playerToken: [] }],
        params: LeaderboardParams,
        querystring: MeQuery,
        response: { 200: LeaderboardMeResponse, ...errors },
      },
    },
    (request) => {
      const { boardId } = request.params;
      const radius = request.query.radius;
      return andThen(app.leaderboards.standing(request.game, boardId, request.player.id, { period: request.query.period, radius: radius ?? 0 }), (standing) => {
        const me = { boardId, period: standing.period, total: standing.total, entry: standing.entry ? toResponseEntry(standing.entry) : null };
        if (radius === undefined) return me;
        return { ...me, neighbors: standing.window.filter((e) => e.playerId !== request.player.id).map(toResponseEntry) };
      });
    },
  );

  app.get(
    '/leaderboards/:boardId/around-me',
    {
      preHandler: guard,
      serializerCompiler: leaderboardSerializerCompiler,
      schema: {
        tags: ['leaderboards'],
        summary: 'Entries around the caller (radius above and below); empty when the caller has no entry',
        description: 'A player hidden in shadow mode still sees themselves here among the visible entries; nobody else sees them.',
        security: [{ playerToken: [] }],
        params: LeaderboardParams,
        querystring: AroundMeQuery,
        response: { 200: LeaderboardAroundMeResponse, ...errors },
      },
    },
    (request) => {
      const { boardId } = request.params;
      const { period, radius = aroundMeRadiusDefault } = request.query;
      return andThen(app.leaderboards.standing(request.game, boardId, request.player.id, { period, radius }), (standing) => {
        return { boardId, period: standing.period, total: standing.total, entries: standing.window.map(toResponseEntry) };
      });
    },
  );
};

import { Type, type TObject } from '@sinclair/typebox';
import { errorResponses } from '@playstack/server-kit';
import type { GameFeature } from '../games/game-scope.js';
import { isoTimestamp } from './iso-time.js';
import { leaderboardSerializerCompiler } from './leaderboard-serializers.js';
import { andThen } from '../awaitable.js';
import type { RankedEntry } from './rank-index.js';
import { chosenPlayers, type ChosenPlayers } from './chosen-players.js';
import type { EventWindowState } from './leaderboard-service.js';
import type { LeaderboardGame } from './leaderboard-game.js';
import { defaultScoreFormat, type ScoreFormat } from '../manifest/score-format.js';
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
  PlayersBody,
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
 * How a board's entries are answered: with `subscore` when it declares one and `metadata` (null
 * for an entry without any) when it keeps some; as before on other boards. The board exists:
 * the read that precedes this found it.
 */
function responseEntries(game: LeaderboardGame, boardId: string): (entry: RankedEntry) => LeaderboardEntry {
  const board = game.boards.find((b) => b.id === boardId)!;
  if (!board.subscore && !board.metadata) return toResponseEntry;
  const withSubscore = board.subscore !== undefined;
  const withMetadata = board.metadata !== undefined;
  return (entry) => {
    const answered: LeaderboardEntry = toResponseEntry(entry);
    if (withSubscore) answered.subscore = entry.subscore;
    if (withMetadata) answered.metadata = entry.metadata ?? null;
    return answered;
  };
}

/** How a board's scores read (the board exists: the read that precedes this found it). */
function shownAs(game: LeaderboardGame, boardId: string): { format: ScoreFormat; unit?: string } {
  const board = game.boards.find((b) => b.id === boardId)!;
  return board.unit === undefined ? { format: board.format ?? defaultScoreFormat } : { format: board.format ?? defaultScoreFormat, unit: board.unit };
}

/** An event period's `startsAt`, `endsAt` and `state`; nothing for a calendar period. */
function eventFields(event: EventWindowState | undefined): { startsAt?: string; endsAt?: string; state?: EventWindowState['state'] } {
  return event ? { startsAt: isoTimestamp(event.startsAt), endsAt: isoTimestamp(event.endsAt), state: event.state } : {};
}

/** The chosen players of a read, from a POST body or the query; undefined for the whole board. */
function playersOf(request: { query: object; body?: unknown; player: { id: string } }): ChosenPlayers | undefined {
  const named = (request.body as PlayersBody | undefined)?.players ?? (request.query as { players?: string }).players;
  return named === undefined ? undefined : chosenPlayers(named, request.player.id);
}

const playersNote =
  "With `players` (a friends' board), only those players' entries and the caller's count, ranked 1..n among themselves; cursors of such a page belong to that set of players.";
const postNote = 'The POST variant takes `players` as a JSON array in the body (for lists too long for a URL), the other parameters in the query.';

/**
 * `GET /leaderboards/:boardId`, `/me` and `/around-me` under `/v1/games/:gameId`, and their POST
 * variants (the players of a friends' board in the body). The handlers are not async: with the
 * in-process engine the answer is ready at once and goes out without a promise (Fastify sends a
 * returned value or awaits a returned promise). Responses are written by
 * `leaderboardSerializerCompiler`'s serializers (entry strings that need no escaping).
 */
export const leaderboardRoutes: GameFeature = async (app) => {
  const guard = [app.requirePlayer, app.playerRateLimit];
  const errors = errorResponses(400, 401, 404, 429, 503);
  const common = { preHandler: guard, serializerCompiler: leaderboardSerializerCompiler };
  const security = [{ playerToken: [] }];

  for (const method of ['GET', 'POST'] as const) {
    const post = method === 'POST';
    const body = post ? { body: PlayersBody } : {};
    // The POST variants take the players from the body only.
    const query = <Q extends TObject>(schema: Q) => (post ? Type.Omit(schema, ['players']) : schema);
    const variant = (text: string) => (post ? `${text} ${postNote}` : text);

    app.route({
      method,
      url: '/leaderboards/:boardId',
      ...common,
      schema: {
        tags: ['leaderboards'],
        summary: post ? "A page of a friends' board (players in the body)" : 'A page of entries in rank order; follow nextCursor for the next one',
        description: variant(`A player hidden in shadow mode sees their own entry in place (the entries after it one rank lower); nobody else sees it. ${playersNote}`),
        security,
        params: LeaderboardParams,
        querystring: query(PageQuery),
        ...body,
        response: { 200: LeaderboardPageResponse, ...errors },
      },
      handler: (request) => {
        const { period, cursor, limit = pageLimitDefault } = request.query;
        const read = { period, cursor, limit, viewer: request.player.id, players: playersOf(request) };
        return andThen(app.leaderboards.page(request.game, request.params.boardId, read), ({ event, ...page }) => ({
          ...page,
          ...eventFields(event),
          ...shownAs(request.game, page.boardId),
          entries: page.entries.map(responseEntries(request.game, page.boardId)),
        }));
      },
    });

    app.route({
      method,
      url: '/leaderboards/:boardId/me',
      ...common,
      schema: {
        tags: ['leaderboards'],
        summary: post ? "The caller's entry and rank on a friends' board (players in the body)" : "The caller's entry and rank, the board's size, and with radius the neighbors",
        description: variant(
          `A player an operator hid has no entry here, unless hidden in shadow mode: then they still see their own entry, ranked among the visible entries, and a total counting them. ${playersNote}`,
        ),
        security,
        params: LeaderboardParams,
        querystring: query(MeQuery),
        ...body,
        response: { 200: LeaderboardMeResponse, ...errors },
      },
      handler: (request) => {
        const { boardId } = request.params;
        const radius = request.query.radius;
        const read = { period: request.query.period, radius: radius ?? 0, players: playersOf(request) };
        return andThen(app.leaderboards.standing(request.game, boardId, request.player.id, read), (standing) => {
          const toEntry = responseEntries(request.game, boardId);
          const me = { boardId, period: standing.period, ...eventFields(standing.event), ...shownAs(request.game, boardId), total: standing.total, entry: standing.entry ? toEntry(standing.entry) : null };
          if (radius === undefined) return me;
          return { ...me, neighbors: standing.window.filter((e) => e.playerId !== request.player.id).map(toEntry) };
        });
      },
    });

    app.route({
      method,
      url: '/leaderboards/:boardId/around-me',
      ...common,
      schema: {
        tags: ['leaderboards'],
        summary: post ? "Entries around the caller on a friends' board (players in the body)" : 'Entries around the caller (radius above and below); empty when the caller has no entry',
        description: variant(`A player hidden in shadow mode still sees themselves here among the visible entries; nobody else sees them. ${playersNote}`),
        security,
        params: LeaderboardParams,
        querystring: query(AroundMeQuery),
        ...body,
        response: { 200: LeaderboardAroundMeResponse, ...errors },
      },
      handler: (request) => {
        const { boardId } = request.params;
        const { period, radius = aroundMeRadiusDefault } = request.query;
        return andThen(app.leaderboards.standing(request.game, boardId, request.player.id, { period, radius, players: playersOf(request) }), (standing) => {
          return {
            boardId,
            period: standing.period,
            ...eventFields(standing.event),
            ...shownAs(request.game, boardId),
            total: standing.total,
            entries: standing.window.map(responseEntries(request.game, boardId)),
          };
        });
      },
    });
  }
};

import { Type, type Static } from '@sinclair/typebox';
import { boardIdMaxLength } from '../manifest/manifest-schema.js';
import { GameIdParam } from '../games/game-params.js';
import { chosenPlayersMax } from './chosen-players.js';
import { ScoreFormat, ScoreUnit } from '../manifest/score-format.js';

/** Bounds of the leaderboard query parameters (the interface specification's limits). */
export const pageLimitMax = 100;
export const pageLimitDefault = 25;
export const radiusMax = 10;
export const aroundMeRadiusDefault = 5;
const periodMaxLength = 17;
const cursorMaxLength = 512;

const periodDescription =
  '`all` (default), `daily`, `weekly`, `monthly` for the current period (UTC), or the key of a past or current one: `2026-11-21`, `2026-W47`, `2026-11`. ' +
  'On an event board, `event` for the live window (else the last one started, else the first) or a window by its start: `2026-11-27T18:00Z` (ended windows keep their final standings)';

export const LeaderboardParams = Type.Object({
  gameId: GameIdParam,
  boardId: Type.String({ minLength: 1, maxLength: boardIdMaxLength, description: 'board id from the manifest' }),
});
export type LeaderboardParams = Static<typeof LeaderboardParams>;

// Optional with defaults: validation fills them in, and OpenAPI shows them as not required.
const Period = Type.Optional(Type.String({ maxLength: periodMaxLength, default: 'all', description: periodDescription }));

/** Bounds the text, not the count: `chosenPlayers` refuses more than 100 ids with a message that says so. */
const playersQueryMaxLength = 16_384;
const playersDescription = `a friends' board: the entries of these players alone (with the caller's), ranked 1..n among themselves; up to ${chosenPlayersMax} player ids`;
const PlayersQuery = Type.Optional(Type.String({ maxLength: playersQueryMaxLength, description: `${playersDescription}, comma-separated` }));

/** The body of the POST variants: the same read with the players in the body (for lists too long for a URL). */
export const PlayersBody = Type.Object({
  players: Type.Array(Type.String({ maxLength: 64 }), { maxItems: 1_000, description: playersDescription }),
});
export type PlayersBody = Static<typeof PlayersBody>;

export const PageQuery = Type.Object({
  players: PlayersQuery,
  period: Period,
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: cursorMaxLength, description: 'nextCursor of the previous page' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: pageLimitMax, default: pageLimitDefault })),
});
export type PageQuery = Static<typeof PageQuery>;

export const MeQuery = Type.Object({
  players: PlayersQuery,
  period: Period,
  radius: Type.Optional(Type.Integer({ minimum: 1, maximum: radiusMax, description: 'also return up to this many neighbors above and below' })),
});
export type MeQuery = Static<typeof MeQuery>;

export const AroundMeQuery = Type.Object({
  players: PlayersQuery,
  period: Period,
  radius: Type.Optional(Type.Integer({ minimum: 1, maximum: radiusMax, default: aroundMeRadiusDefault, description: 'entries above and below the caller' })),
});
export type AroundMeQuery = Static<typeof AroundMeQuery>;

export const LeaderboardEntry = Type.Object(
  {
    rank: Type.Integer({ minimum: 1, description: "1-based position: score in board order, then subscore in its own order (boards with one), then earlier achievedAt, then playerId" }),
    playerId: Type.String(),
    displayName: Type.String(),
    score: Type.Number(),
    subscore: Type.Optional(Type.Number({ description: "boards with a subscore only: the tie-break value of the run the entry stands for (0 for entries recorded before the board declared it)" })),
    achievedAt: Type.String({ format: 'date-time', description: 'when the entry reached its score' }),
    metadata: Type.Optional(
      Type.Union([Type.Record(Type.String(), Type.Number()), Type.Null()], {
        description: "boards keeping metadata only: the board's metadata values of the run the entry stands for; null when the entry has none (recorded before the board kept metadata)",
      }),
    ),
  },
);
export type LeaderboardEntry = Static<typeof LeaderboardEntry>;

const EntryRef = LeaderboardEntry;
const BoardId = Type.String();
/** How the board's scores read, returned with every read so a game shows them as the admin pages do. */
const ShownAs = { format: ScoreFormat, unit: Type.Optional(ScoreUnit) };
const ResolvedPeriod = Type.String({ description: '`all` or the resolved period key' });

/** An event period's window and state: present only for event periods. */
const eventWindowFields = {
  startsAt: Type.Optional(Type.String({ format: 'date-time', description: 'event periods only: when the window opens' })),
  endsAt: Type.Optional(Type.String({ format: 'date-time', description: 'event periods only: when the window closes (exclusive); from then on its standings are frozen' })),
  state: Type.Optional(
    Type.Union([Type.Literal('upcoming'), Type.Literal('live'), Type.Literal('ended')], { description: 'event periods only: upcoming, live (taking runs) or ended (final standings)' }),
  ),
};

export const LeaderboardPageResponse = Type.Object(
  {
    boardId: BoardId,
    period: ResolvedPeriod,
    ...eventWindowFields,
    ...ShownAs,
    entries: Type.Array(EntryRef),
    nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'null on the last page' }),
  },
  { $id: 'LeaderboardPage' },
);
export type LeaderboardPageResponse = Static<typeof LeaderboardPageResponse>;

export const LeaderboardMeResponse = Type.Object(
  {
    boardId: BoardId,
    period: ResolvedPeriod,
    ...eventWindowFields,
    ...ShownAs,
    total: Type.Integer({ minimum: 0, description: "entries on the board in this period (with players: the chosen players' entries)" }),
    entry: Type.Union([EntryRef, Type.Null()], { description: "the caller's entry, null when they have none" }),
    neighbors: Type.Optional(Type.Array(EntryRef, { description: 'with radius: up to radius entries above and below, the caller excluded' })),
  },
  { $id: 'LeaderboardMe' },
);
export type LeaderboardMeResponse = Static<typeof LeaderboardMeResponse>;

export const LeaderboardAroundMeResponse = Type.Object(
  {
    boardId: BoardId,
    period: ResolvedPeriod,
    ...eventWindowFields,
    ...ShownAs,
    total: Type.Integer({ minimum: 0 }),
    entries: Type.Array(EntryRef, { description: 'centred on the caller, the caller included; empty when they have no entry' }),
  },
  { $id: 'LeaderboardAroundMe' },
);
export type LeaderboardAroundMeResponse = Static<typeof LeaderboardAroundMeResponse>;

import { Type, type Static } from '@sinclair/typebox';
import { GameIdParam } from '../games/game-params.js';
import { adapterIdMaxLength } from '../manifest/manifest-schema.js';

export const runIdPattern = '^[A-Za-z0-9._~-]{8,128}$';

export const RunParams = Type.Object({
  gameId: GameIdParam,
  adapterId: Type.String({ minLength: 1, maxLength: adapterIdMaxLength, description: "one of the game's adapter ids from the manifest" }),
});
export type RunParams = Static<typeof RunParams>;

export const RunBody = Type.Object(
  {
    runId: Type.String({
      pattern: runIdPattern,
      description: 'client-chosen id, unique per game and player; resubmitting the same content is safe',
    }),
    payload: Type.Object(
      {},
      {
        additionalProperties: true,
        description: "evidence for the adapter, in its type's payload schema (see /admin/adapters); may include client-side hints",
      },
    ),
  },
  { additionalProperties: false },
);
export type RunBody = Static<typeof RunBody>;

export const LeaderboardPlacementSchema = Type.Object({
  boardId: Type.String(),
  period: Type.String({ description: '`all`, or the key of the period the run counted in: 2026-11-21, 2026-W47, 2026-11' }),
  score: Type.Number({ description: "the player's entry after this run" }),
  rank: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
    description: 'rank after this run; null only when the entry was erased before the ranks were read',
  }),
  improved: Type.Boolean({ description: "whether this run changed the player's entry" }),
});

export const BoardRefusalSchema = Type.Object({
  boardId: Type.String(),
  reason: Type.Union([Type.Literal('event-not-started'), Type.Literal('event-ended'), Type.Literal('event-full')], {
    description:
      'event-not-started: before the first window; event-ended: after a window ended (its standings are frozen) or between windows; event-full: the window has its maxEntrants and the player had no entry',
  }),
  message: Type.String({ description: 'the reason in words, with the times involved' }),
});

export const RunAcceptedResponse = Type.Object(
  {
    runId: Type.String(),
    adapterId: Type.String(),
    status: Type.Literal('accepted'),
    result: Type.Record(Type.String(), Type.Number(), { description: "the adapter's derived values, e.g. score" }),
    leaderboards: Type.Array(LeaderboardPlacementSchema, { description: 'every board and period the run was recorded on' }),
    notScored: Type.Array(BoardRefusalSchema, { description: 'event boards fed by this adapter that did not take the run, and why; empty when every board took it' }),
  },
  { $id: 'RunAccepted' },
);
export type RunAcceptedResponse = Static<typeof RunAcceptedResponse>;

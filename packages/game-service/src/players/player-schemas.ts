import { Type, type Static } from '@sinclair/typebox';

export const DeletePlayerResponse = Type.Object(
  {
    deleted: Type.Object(
      {
        runs: Type.Integer({ minimum: 0 }),
        entries: Type.Integer({ minimum: 0, description: 'leaderboard entries, every period' }),
        sessions: Type.Integer({ minimum: 0, description: 'refresh families (sign-ins)' }),
      },
      { additionalProperties: Type.Integer({ minimum: 0 }), description: 'how many items of each kind were erased' },
    ),
  },
  { description: "The player's data is erased; later sign-ins create a new player" },
);
export type DeletePlayerResponse = Static<typeof DeletePlayerResponse>;

import { defineErrorCodes } from '@playstack/server-kit';

/** The leaderboards' own error codes (modules that throw them import this file, which registers them). */
export const leaderboardErrorCodes = defineErrorCodes({
  'invalid-period': 400,
  'invalid-players': 400,
  'board-not-found': 404,
});

declare module '@playstack/server-kit' {
  interface ServiceErrorCodes extends Readonly<typeof leaderboardErrorCodes> {}
}

import { defineErrorCodes } from '@playstack/server-kit';

/** Moderation's own error codes (modules that throw them import this file, which registers them). */
export const moderationErrorCodes = defineErrorCodes({
  'player-not-found': 404,
  'entry-not-found': 404,
  'run-not-found': 404,
  'player-not-hidden': 409,
  'run-not-reviewable': 409,
});

declare module '@playstack/server-kit' {
  interface ServiceErrorCodes extends Readonly<typeof moderationErrorCodes> {}
}

import { defineErrorCodes } from '@playstack/server-kit';

/** The manifest's own error codes (modules that throw them import this file, which registers them). */
export const manifestErrorCodes = defineErrorCodes({
  'invalid-manifest': 400,
  'game-not-found': 404,
  'manifest-version-not-found': 404,
});

declare module '@playstack/server-kit' {
  interface ServiceErrorCodes extends Readonly<typeof manifestErrorCodes> {}
}

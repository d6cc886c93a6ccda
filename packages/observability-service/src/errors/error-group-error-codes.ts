import { defineErrorCodes } from '@playstack/server-kit';

/** Error groups' own error codes (modules that throw them import this file, which registers them). */
export const errorGroupErrorCodes = defineErrorCodes({
  'error-group-not-found': 404,
});

declare module '@playstack/server-kit' {
  interface ServiceErrorCodes extends Readonly<typeof errorGroupErrorCodes> {}
}

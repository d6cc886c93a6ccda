import { defineErrorCodes } from '@playstack/server-kit';

/** The read API's own error codes (modules that throw them import this file, which registers them). */
export const queryErrorCodes = defineErrorCodes({
  'occurrence-not-found': 404,
  'trace-not-found': 404,
});

declare module '@playstack/server-kit' {
  interface ServiceErrorCodes extends Readonly<typeof queryErrorCodes> {}
}

import { defineErrorCodes } from '@playstack/server-kit';

/** The alerts feature's own error codes (modules that throw them import this file, which registers them). */
export const alertErrorCodes = defineErrorCodes({
  'alert-rule-not-found': 404,
  'alert-channel-not-found': 404,
  'alert-rule-read-only': 409,
});

declare module '@playstack/server-kit' {
  interface ServiceErrorCodes extends Readonly<typeof alertErrorCodes> {}
}

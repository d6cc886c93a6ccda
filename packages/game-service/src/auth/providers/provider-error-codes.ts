import { defineErrorCodes } from '@playstack/server-kit';

/** Identity providers' error codes (modules that throw them import this file, which registers them). */
export const providerErrorCodes = defineErrorCodes({
  'provider-error': 502,
  'provider-unavailable': 503,
});

declare module '@playstack/server-kit' {
  interface ServiceErrorCodes extends Readonly<typeof providerErrorCodes> {}
}

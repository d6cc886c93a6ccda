import { defineErrorCodes } from '@playstack/server-kit';

/** The runs' own error codes (modules that throw them import this file, which registers them). */
export const runErrorCodes = defineErrorCodes({
  'adapter-not-found': 404,
  'run-id-conflict': 409,
  'evidence-rejected': 422,
});

declare module '@playstack/server-kit' {
  interface ServiceErrorCodes extends Readonly<typeof runErrorCodes> {}
}

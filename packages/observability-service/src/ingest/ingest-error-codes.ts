import { defineErrorCodes } from '@playstack/server-kit';

/** Ingestion's own error codes (modules that throw them import this file, which registers them). */
export const ingestErrorCodes = defineErrorCodes({
  'invalid-envelope': 400,
  'storage-unavailable': 503,
});

declare module '@playstack/server-kit' {
  interface ServiceErrorCodes extends Readonly<typeof ingestErrorCodes> {}
}

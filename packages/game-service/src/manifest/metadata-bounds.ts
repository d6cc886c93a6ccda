/** Default bound of an entry's metadata, as JSON bytes, when its board does not set one. */
export const defaultMetadataMaxBytes = 256;
/** The largest bound a board may set. */
export const metadataMaxBytesLimit = 1024;
/** Most adapter outputs a board may keep as metadata. */
export const maxMetadataValues = 16;
/** The longest a finite double reads as JSON (`-2.2250738585072014e-308`). */
export const maxNumberJsonBytes = 24;

/**
 * The most bytes metadata of these keys can take as JSON, whatever their values (finite
 * numbers): the manifest refuses a board whose keys could outgrow its bound, so no run can.
 */
export function worstMetadataBytes(values: readonly string[]): number {
  // `{}`, then per key its quoted name, `:`, the value, and a `,` between keys.
  let bytes = 2 + Math.max(0, values.length - 1);
  for (const value of values) bytes += Buffer.byteLength(JSON.stringify(value)) + 1 + maxNumberJsonBytes;
  return bytes;
}

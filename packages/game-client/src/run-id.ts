/** What the service accepts as a run id. */
export const runIdPattern = /^[A-Za-z0-9._~-]{8,128}$/;

const runIdRandomBytes = 16;
const base64UrlAlphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * A new run id: 128 bits from the platform's cryptographic random source, base64url (22
 * characters). Guessable or colliding ids would let one run be mistaken for another.
 */
export function createRunId(): string {
  const bytes = new Uint8Array(runIdRandomBytes);
  globalThis.crypto.getRandomValues(bytes);
  let id = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      id += base64UrlAlphabet[(buffer >> bits) & 63];
    }
  }
  if (bits > 0) id += base64UrlAlphabet[(buffer << (6 - bits)) & 63];
  return id;
}

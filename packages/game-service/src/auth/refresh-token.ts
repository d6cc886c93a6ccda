import { createHash, randomBytes } from 'node:crypto';

/** 32 bytes of entropy: 43 base64url characters, inside the 16..256 the interface allows. */
const refreshTokenBytes = 32;

export function newRefreshToken(): string {
  return randomBytes(refreshTokenBytes).toString('base64url');
}

/**
 * Refresh tokens are stored only as this hash. A fast hash suffices: the tokens are random with
 * 256 bits of entropy, so there is nothing to guess from a stolen hash.
 */
export function hashRefreshToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

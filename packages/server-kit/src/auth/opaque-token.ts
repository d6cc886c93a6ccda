import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Bytes of entropy in every opaque token the kit issues (256 bits). */
export const opaqueTokenBytes = 32;

/**
 * A fresh random token, base64url without padding. Sessions, reset and invitation tokens and API
 * keys are all of this kind: unguessable, and only ever stored as {@link hashOpaqueToken}.
 */
export function newOpaqueToken(bytes: number = opaqueTokenBytes): string {
  return randomBytes(bytes).toString('base64url');
}

/**
 * The stored form of an opaque token. A plain SHA-256 is enough here (unlike passwords): the
 * token carries 256 bits of entropy, so there is nothing to brute-force, and lookups stay one
 * indexed equality match.
 */
export function hashOpaqueToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * Constant-time equality of two secrets of any length: both sides are hashed first, so neither
 * the content nor the length of the expected secret leaks through timing.
 */
export function secretsMatch(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

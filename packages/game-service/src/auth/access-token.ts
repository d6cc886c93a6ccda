import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';

/** What an access token asserts. */
export interface AccessClaims {
  readonly playerId: string;
  readonly gameId: string;
  readonly displayName: string;
  /** The refresh family it was issued from: revoking the family kills the token. */
  readonly familyId: string;
  /** Expiry, epoch milliseconds. */
  readonly expiresAt: number;
}

const prefix = 'v1';
/**
 * Verified tokens remembered (oldest forgotten first): a client presents the same token on every
 * request until it refreshes, and a map lookup costs far less than an HMAC and a JSON parse.
 */
const verifiedCacheSize = 10_000;
/** Tokens longer than this are refused before any work is done on them. */
export const maxAccessTokenLength = 2048;

interface Payload {
  sub: string;
  gid: string;
  fam: string;
  name: string;
  exp: number;
}

/** A key that still verifies tokens but no longer signs them (after a rotation). */
export interface VerifyingKey {
  readonly secret: Buffer;
  /** Tokens it verifies must expire by then (epoch ms); unbounded when absent. */
  readonly acceptedUntil?: number;
}

interface Verifier {
  readonly key: KeyObject;
  readonly acceptedUntil: number;
}

/**
 * Compact HMAC-SHA256 access tokens: `v1.<payload>.<signature>`, both base64url. Stateless to
 * verify; revocation is checked separately by family. Signed with one key; verified with it or
 * any previous key still accepted (a rotation does not cut off the tokens already out).
 */
export class AccessTokenCodec {
  readonly #key: KeyObject;
  readonly #previous: readonly Verifier[];
  readonly #verified = new Map<string, AccessClaims>();

  constructor(key: Buffer, previous: readonly VerifyingKey[] = []) {
    this.#key = createSecretKey(key);
    this.#previous = previous.map((verifying) => ({
      key: createSecretKey(verifying.secret),
      acceptedUntil: verifying.acceptedUntil ?? Number.POSITIVE_INFINITY,
    }));
  }

  sign(claims: AccessClaims): string {
    const payload: Payload = { sub: claims.playerId, gid: claims.gameId, fam: claims.familyId, name: claims.displayName, exp: claims.expiresAt };
    const body = `${prefix}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
    return `${body}.${signature(this.#key, body).toString('base64url')}`;
  }

  /** The claims of a well-formed, correctly signed token (expiry not checked), else undefined. */
  verify(token: string): AccessClaims | undefined {
    const known = this.#verified.get(token);
    if (known) return known;
    const claims = this.#verifySignature(token);
    if (claims) {
      if (this.#verified.size >= verifiedCacheSize) this.#verified.delete(this.#verified.keys().next().value!);
      this.#verified.set(token, claims);
    }
    return claims;
  }

  #verifySignature(token: string): AccessClaims | undefined {
    if (token.length > maxAccessTokenLength) return undefined;
    const parts = token.split('.');
    if (parts.length !== 3 || parts[0] !== prefix) return undefined;
    const body = `${parts[0]}.${parts[1]}`;
    const presented = Buffer.from(parts[2]!, 'base64url');
    let acceptedUntil = Number.POSITIVE_INFINITY;
    if (!signatureMatches(presented, signature(this.#key, body))) {
      const verifier = this.#previous.find((candidate) => signatureMatches(presented, signature(candidate.key, body)));
      if (!verifier) return undefined;
      acceptedUntil = verifier.acceptedUntil;
    }
    let payload: Partial<Payload>;
    try {
      payload = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as Partial<Payload>;
    } catch {
      return undefined;
    }
    const { sub, gid, fam, name, exp } = payload;
    if (typeof sub !== 'string' || typeof gid !== 'string' || typeof fam !== 'string' || typeof name !== 'string' || typeof exp !== 'number') {
      return undefined;
    }
    if (exp > acceptedUntil) return undefined;
    return Object.freeze({ playerId: sub, gameId: gid, familyId: fam, displayName: name, expiresAt: exp });
  }
}

function signature(key: KeyObject, body: string): Buffer {
  return createHmac('sha256', key).update(body).digest();
}

function signatureMatches(presented: Buffer, expected: Buffer): boolean {
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}

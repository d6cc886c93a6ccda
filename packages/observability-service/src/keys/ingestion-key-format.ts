import { randomBytes } from 'node:crypto';
import { newOpaqueToken } from '@playstack/server-kit';

/** Every ingestion key starts with this, so leaked keys are recognisable (secret scanners, logs). */
export const ingestionKeyMarker = 'obsk_';

/** A freshly minted key: the secret (shown once) and its public prefix (listed forever). */
export interface MintedIngestionKey {
  key: string;
  prefix: string;
}

/**
 * Mints `obsk_<8 hex>_<43 base64url>`. The hex part is public and tells keys apart in lists; the
 * rest carries 256 bits of entropy. Only a hash of the whole key is stored.
 */
export function mintIngestionKey(): MintedIngestionKey {
  const prefix = `${ingestionKeyMarker}${randomBytes(4).toString('hex')}`;
  return { key: `${prefix}_${newOpaqueToken()}`, prefix };
}

/** The credential in an `Authorization: Bearer <key>` header, or undefined. */
export function bearerCredential(authorization: string | undefined): string | undefined {
  if (!authorization) return undefined;
  const match = /^Bearer +(\S+) *$/i.exec(authorization);
  return match?.[1];
}

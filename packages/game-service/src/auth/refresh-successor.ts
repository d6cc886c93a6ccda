import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * The successor of a spent refresh token, sealed with a key only the spent token itself yields
 * (HKDF-SHA256 of the token, AES-256-GCM). Kept beside the spent token's hash, it lets a refresh
 * racing the one that rotated (two tabs, a retry after a timeout) get the same successor, while
 * the database holds nothing usable: whoever reads it needs the spent token to open the successor.
 */
const format = 'v1';
const keyInfo = 'playstack refresh-token successor v1';
const ivBytes = 12;
const tagBytes = 16;

function keyOf(spentToken: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(spentToken, 'utf8'), Buffer.alloc(0), keyInfo, 32));
}

/** Seals `successor` so that only `spentToken` opens it. */
export function sealSuccessor(spentToken: string, successor: string): string {
  const iv = randomBytes(ivBytes);
  const cipher = createCipheriv('aes-256-gcm', keyOf(spentToken), iv);
  const sealed = Buffer.concat([cipher.update(successor, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `${format}.${iv.toString('base64url')}.${sealed.toString('base64url')}`;
}

/** The successor sealed for `spentToken`, or undefined when it does not open with it. */
export function openSuccessor(spentToken: string, sealed: string): string | undefined {
  const [version, ivText, bodyText] = sealed.split('.');
  if (version !== format || !ivText || !bodyText) return undefined;
  const iv = Buffer.from(ivText, 'base64url');
  const body = Buffer.from(bodyText, 'base64url');
  if (iv.length !== ivBytes || body.length <= tagBytes) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyOf(spentToken), iv);
    decipher.setAuthTag(body.subarray(body.length - tagBytes));
    return Buffer.concat([decipher.update(body.subarray(0, body.length - tagBytes)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

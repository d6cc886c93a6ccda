import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const format = 'v1';
const algorithm = 'aes-256-gcm';

/**
 * Seals channel configurations (webhook URLs, signing secrets, Slack URLs) before they are
 * stored: AES-256-GCM under a key derived (HKDF-SHA-256) from the service secret, which lives in
 * OBSERVABILITY_SECRET or DATA_DIR/observability-secret and never in the database. A database
 * backup alone reveals no channel secret. Former secrets (OBSERVABILITY_PREVIOUS_SECRETS) still
 * open what they sealed.
 */
export class ChannelSealer {
  readonly #keys: Buffer[];

  /** `secrets`: the current service secret first, then former ones. */
  constructor(secrets: readonly Buffer[]) {
    if (secrets.length === 0) throw new Error('a channel sealer needs the service secret');
    this.#keys = secrets.map((secret) => Buffer.from(hkdfSync('sha256', secret, 'playstack-observability', 'alert-channel-config', 32)));
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv(algorithm, this.#keys[0]!, iv);
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [format, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), sealed.toString('base64url')].join('.');
  }

  /** The plain text; throws when no known secret sealed it (the secret was replaced without keeping the former one). */
  open(sealed: string): string {
    const [version, iv, tag, data] = sealed.split('.');
    if (version !== format || !iv || !tag || data === undefined) throw new Error('not a sealed channel configuration');
    for (const key of this.#keys) {
      try {
        const decipher = createDecipheriv(algorithm, key, Buffer.from(iv, 'base64url'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        // Sealed under another secret: try the next one.
      }
    }
    throw new Error('the channel configuration was sealed with a secret this instance does not have (OBSERVABILITY_SECRET / OBSERVABILITY_PREVIOUS_SECRETS)');
  }
}

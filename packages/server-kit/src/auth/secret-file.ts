import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { newOpaqueToken } from './opaque-token.js';

const ownerOnlyMode = 0o600;

export interface SecretFileOptions {
  /** The secret to write when the file does not exist yet (otherwise a random one). */
  initial?: Buffer;
  /** Least length in bytes of a secret read back, and of one generated. */
  minBytes: number;
  /** What the secret is for, in log lines and errors ("the access-token secret"). */
  what: string;
  /** What to set instead, in the log line saying one was generated. */
  configuredBy: string;
  log: FastifyBaseLogger;
}

/**
 * A secret kept in a file of its own (mode 0600), never in the database: read when it exists,
 * generated otherwise. Written whole to a temporary file and then linked into place, which fails
 * if the file exists: instances sharing the directory and starting together agree on one
 * secret, never read half of one. A file readable by others is made owner-only again.
 */
export function readOrCreateSecretFile(path: string, options: SecretFileOptions): Buffer {
  const existing = readSecretFile(path, options);
  if (existing) return existing;
  mkdirSync(dirname(path), { recursive: true });
  const secret = options.initial ?? Buffer.from(newOpaqueToken(options.minBytes), 'base64url');
  const staged = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(staged, `${secret.toString('base64url')}\n`, { mode: ownerOnlyMode, flag: 'wx' });
  try {
    linkSync(staged, path);
    options.log.info({ path }, `generated ${options.what} (set ${options.configuredBy} to choose it)`);
    return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return readSecretFile(path, options) ?? secret;
  } finally {
    unlinkSync(staged);
  }
}

function readSecretFile(path: string, options: SecretFileOptions): Buffer | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const secret = Buffer.from(text.trim(), 'base64url');
  if (secret.length < options.minBytes) throw new Error(`${path} does not hold ${options.what} (${options.minBytes}+ bytes, base64url); delete it to generate one`);
  if ((statSync(path).mode & 0o077) !== 0) {
    chmodSync(path, ownerOnlyMode);
    options.log.warn({ path }, `the file of ${options.what} was readable by others; its mode is now 0600`);
  }
  return secret;
}

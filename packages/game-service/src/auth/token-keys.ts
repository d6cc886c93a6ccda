import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { newOpaqueToken } from '@playstack/server-kit';
import type { VerifyingKey } from './access-token.js';

interface SettingTables {
  service_settings: { name: string; value: string };
}

/** Where a generated secret is kept, under DATA_DIR. */
export const generatedSecretFileName = 'game-token-secret';
/** Where versions before this one kept the generated secret (a database backup could forge tokens). */
const legacySettingName = 'access-token-secret';
const generatedSecretBytes = 32;
const ownerOnlyMode = 0o600;

/** The keys access tokens are signed and verified with. */
export interface TokenKeys {
  readonly signing: Buffer;
  readonly previous: readonly VerifyingKey[];
}

export interface TokenKeySources {
  /** GAME_TOKEN_SECRET. */
  configured: string | undefined;
  /** GAME_TOKEN_PREVIOUS_SECRETS: still verify, never sign. */
  previousConfigured: readonly string[];
  dataDir: string;
  /** True on PostgreSQL, where instances on several machines usually share the database. */
  sharedDatabase: boolean;
  now: number;
  accessTokenTtlMs: number;
  log: FastifyBaseLogger;
}

/**
 * The access-token keys: GAME_TOKEN_SECRET when configured, otherwise a secret generated once and
 * kept in `DATA_DIR/game-token-secret` (mode 0600), never in the database. A secret an older
 * version kept in the database is moved out: into the file when no secret is configured (tokens
 * already out keep working), else kept for verification for one access-token lifetime, and
 * deleted from the database either way.
 */
export async function resolveTokenKeys(anyDb: Kysely<any>, sources: TokenKeySources): Promise<TokenKeys> {
  const db = anyDb as Kysely<SettingTables>;
  const legacyRow = await db.selectFrom('service_settings').select('value').where('name', '=', legacySettingName).executeTakeFirst();
  const legacy = legacyRow ? Buffer.from(legacyRow.value, 'base64url') : undefined;
  const previous: VerifyingKey[] = sources.previousConfigured.map((secret) => ({ secret: Buffer.from(secret, 'utf8') }));

  let signing: Buffer;
  if (sources.configured) {
    signing = Buffer.from(sources.configured, 'utf8');
  } else {
    signing = readOrCreateSecretFile(join(sources.dataDir, generatedSecretFileName), legacy, sources.log);
    if (sources.sharedDatabase) {
      sources.log.warn(
        'GAME_TOKEN_SECRET is not set: the access-token secret is generated in DATA_DIR, so instances on other machines refuse this one\'s tokens; set GAME_TOKEN_SECRET on every instance',
      );
    }
  }
  if (legacy) {
    if (!legacy.equals(signing)) previous.push({ secret: legacy, acceptedUntil: sources.now + sources.accessTokenTtlMs });
    await db.deleteFrom('service_settings').where('name', '=', legacySettingName).execute();
    sources.log.info('moved the access-token secret out of the database');
  }
  return { signing, previous };
}

/**
 * The secret in the file, creating it (with `initial`, or a random one) when there is none.
 * Written whole to a file of its own and then linked into place, which fails if the file exists:
 * instances sharing DATA_DIR and starting together agree on one secret, never read half of one.
 */
function readOrCreateSecretFile(path: string, initial: Buffer | undefined, log: FastifyBaseLogger): Buffer {
  const existing = readSecretFile(path, log);
  if (existing) return existing;
  mkdirSync(join(path, '..'), { recursive: true });
  const secret = initial ?? Buffer.from(newOpaqueToken(generatedSecretBytes), 'base64url');
  const staged = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(staged, `${secret.toString('base64url')}\n`, { mode: ownerOnlyMode, flag: 'wx' });
  try {
    linkSync(staged, path);
    log.info({ path }, 'generated the access-token secret (set GAME_TOKEN_SECRET to choose it)');
    return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return readSecretFile(path, log) ?? secret;
  } finally {
    unlinkSync(staged);
  }
}

function readSecretFile(path: string, log: FastifyBaseLogger): Buffer | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const secret = Buffer.from(text.trim(), 'base64url');
  if (secret.length < generatedSecretBytes) throw new Error(`${path} does not hold an access-token secret (${generatedSecretBytes}+ bytes, base64url); delete it to generate one`);
  if ((statSync(path).mode & 0o077) !== 0) {
    chmodSync(path, ownerOnlyMode);
    log.warn({ path }, 'the access-token secret file was readable by others; its mode is now 0600');
  }
  return secret;
}

import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { readOrCreateSecretFile } from '@playstack/server-kit';
import type { VerifyingKey } from './access-token.js';
import type { GameDb } from '../database.js';

/** Where a generated secret is kept, under DATA_DIR. */
export const generatedSecretFileName = 'game-token-secret';
/** Where versions before this one kept the generated secret (a database backup could forge tokens). */
const legacySettingName = 'access-token-secret';
const generatedSecretBytes = 32;

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
export async function resolveTokenKeys(db: GameDb, sources: TokenKeySources): Promise<TokenKeys> {
  const legacyRow = await db.selectFrom('service_settings').select('value').where('name', '=', legacySettingName).executeTakeFirst();
  const legacy = legacyRow ? Buffer.from(legacyRow.value, 'base64url') : undefined;
  const previous: VerifyingKey[] = sources.previousConfigured.map((secret) => ({ secret: Buffer.from(secret, 'utf8') }));

  let signing: Buffer;
  if (sources.configured) {
    signing = Buffer.from(sources.configured, 'utf8');
  } else {
    signing = readOrCreateSecretFile(join(sources.dataDir, generatedSecretFileName), {
      initial: legacy,
      minBytes: generatedSecretBytes,
      what: 'the access-token secret',
      configuredBy: 'GAME_TOKEN_SECRET',
      log: sources.log,
    });
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

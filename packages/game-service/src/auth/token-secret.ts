import { newOpaqueToken } from '@playstack/server-kit';
import type { Kysely } from 'kysely';

interface SettingTables {
  service_settings: { name: string; value: string };
}

const settingName = 'access-token-secret';
const generatedSecretBytes = 32;

/**
 * The HMAC key for access tokens: GAME_TOKEN_SECRET when configured; otherwise one generated on
 * first boot and kept in the database, so restarts and every instance sharing it agree. The
 * first instance to insert wins; the others read its value.
 */
export async function resolveTokenSecret(anyDb: Kysely<any>, configured: string | undefined): Promise<Buffer> {
  if (configured) return Buffer.from(configured, 'utf8');
  const db = anyDb as Kysely<SettingTables>;
  await db
    .insertInto('service_settings')
    .values({ name: settingName, value: newOpaqueToken(generatedSecretBytes) })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db.selectFrom('service_settings').select('value').where('name', '=', settingName).executeTakeFirstOrThrow();
  return Buffer.from(row.value, 'base64url');
}

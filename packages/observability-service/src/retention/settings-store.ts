import type { ObservabilityDb } from '../database.js';

/** The named setting's stored value; undefined while nobody has set it. */
export async function getSetting(db: ObservabilityDb, name: string): Promise<string | undefined> {
  const row = await db.selectFrom('settings').select('value').where('name', '=', name).executeTakeFirst();
  return row?.value;
}

/** Stores a named setting, replacing its value. */
export async function putSetting(db: ObservabilityDb, name: string, value: string, now: number): Promise<void> {
  await db
    .insertInto('settings')
    .values({ name, value, updated_at: now })
    .onConflict((oc) => oc.column('name').doUpdateSet({ value, updated_at: now }))
    .execute();
}

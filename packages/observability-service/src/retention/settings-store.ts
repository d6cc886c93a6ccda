import type { Kysely } from 'kysely';

/** A row of `settings`: one named value, stored as text. */
export interface SettingRow {
  name: string;
  value: string;
  updated_at: number;
}

export interface SettingsTables {
  settings: SettingRow;
}

export async function getSetting(db: Kysely<any>, name: string): Promise<string | undefined> {
  const row = await (db as Kysely<SettingsTables>).selectFrom('settings').select('value').where('name', '=', name).executeTakeFirst();
  return row?.value;
}

export async function putSetting(db: Kysely<any>, name: string, value: string, now: number): Promise<void> {
  await (db as Kysely<SettingsTables>)
    .insertInto('settings')
    .values({ name, value, updated_at: now })
    .onConflict((oc) => oc.column('name').doUpdateSet({ value, updated_at: now }))
    .execute();
}
